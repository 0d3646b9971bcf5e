"""privcore: the computations behind Privacy Workbench.

Loading and roles (:mod:`privcore.data`), run history (:mod:`privcore.history`), and the
command line (:mod:`privcore.cli`). This package never imports Streamlit, and imports
torch only inside :mod:`privcore.ldp`.
"""

__version__ = "0.1.0"
