"""WebPlotViz from Python: upload NumPy points and files, read plots back as arrays, run analytics
jobs, save selections, and embed plots in notebooks.

    import webplotviz
    client = webplotviz.Client("http://localhost:8080")   # token from WEBPLOTVIZ_TOKEN
    plot = client.upload_points(xyz, clusters=labels, name="MDS run")
    xyz_back = plot.positions()
"""
from .client import Client
from .errors import WebPlotVizError
from .jobs import Job
from .plot import Plot

__all__ = ["Client", "Job", "Plot", "WebPlotVizError"]
__version__ = "0.1.0"
