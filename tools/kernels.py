"""The kernels that run the labs, at build time (tools/jupyter/ names this class; dev.py puts that folder on
JUPYTER_CONFIG_PATH) and in the tests: each talks over Unix sockets of its own. Over TCP every kernel warns
that the connection is unencrypted, and kernels started together can race for a port ("Address already in
use"); Jupyter's own IPC default names every kernel's sockets "kernel-ipc-N" in the working directory, so
kernels started together would share them."""

import tempfile
import uuid
from pathlib import Path

from jupyter_client import AsyncKernelManager
from traitlets import default


class KernelManager(AsyncKernelManager):
    @default("transport")
    def _transport_default(self) -> str:
        return "ipc"

    @default("ip")
    def _ip_default(self) -> str:
        return str(Path(tempfile.gettempdir()) / f"kernel-{uuid.uuid4().hex}")
