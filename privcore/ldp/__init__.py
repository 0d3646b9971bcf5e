"""Local differential privacy: mechanisms, auditors, and reconstruction (SPEC §7).

torch is imported lazily inside this package only (never at import time of privcore or
of the app), through :func:`privcore.ldp.device.torch_module`.
"""
