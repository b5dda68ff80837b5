import numpy as np

from transformer_math.optim import Adam, AdamW

# Two parameters pulled towards 1, one by a steep loss, one by a very flat one:
# L(w) = 1/2 * (100 * (w0 - 1)^2 + 0.01 * (w1 - 1)^2)
curvature = np.array([100.0, 0.01])


def grad_loss(w):
    return curvature * (w - 1.0)


lam, lr, steps = 0.1, 0.01, 5000

# Adam with an L2 term in the loss: the decay's gradient lam * w goes through m and v
w_l2 = np.zeros(2)
adam = Adam([w_l2], lr=lr)
for _ in range(steps):
    adam.step([grad_loss(w_l2) + lam * w_l2])

# AdamW: the decay is applied to w directly, outside m and v
w_decoupled = np.zeros(2)
adamw = AdamW([w_decoupled], lr=lr, weight_decay=lam)
for _ in range(steps):
    adamw.step([grad_loss(w_decoupled)])

print("Adam + L2:", np.round(w_l2, 4))
print("AdamW:    ", np.round(w_decoupled, 4))
print("L2 optimum a / (a + lam):", np.round(curvature / (curvature + lam), 4))
