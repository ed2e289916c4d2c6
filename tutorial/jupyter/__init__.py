"""Jupyter around the course: starting JupyterLab, keeping notebooks clean, running them.

The notebooks import none of it. One idea per file:

- ``lab``           start JupyterLab on the course (``make lab``) or the deck (``make slides``)
- ``lab_settings``  the course's JupyterLab settings (widget state saved, no news prompt)
- ``labextension``  (a folder, not a module) the course's JupyterLab extension, plain
  JavaScript loaded by ``lab``: a notebook nobody changed shows no unsaved dot
- ``widget_frames`` a save hook that keeps each widget's saved frame when a save would drop it
- ``notebooks``     maintainer tools: execute, check and build the notebooks
- ``shown_checks``  the failed checks and errors a notebook's outputs show
- ``notebook_runs`` run notebooks without saving them: at full size (``make test-full``,
  which also times them for the README's course map, ``course_map``) and under other seeds
  (``make test-seeds``)
- ``course_map``    the README's course map: each notebook's full-size time
"""
