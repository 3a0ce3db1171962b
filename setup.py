"""Package discovery (the project's metadata is in pyproject.toml).

pyproject.toml can either list packages or find them, not both; the bundled sample games are
one package that cannot be found (``companion.sample_images`` maps to the top-level
``sample_images/`` folder), so the finding is done here.
"""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["companion", "companion.*"]), "companion.sample_images"])
