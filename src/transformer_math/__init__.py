"""The small NumPy library taught by *Mathematics for Transformers*.

One module per idea; each page of the guide shows the code it teaches from these files.
"""

__version__ = "0.2.0"
