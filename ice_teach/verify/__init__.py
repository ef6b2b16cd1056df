"""The book on other machines and versions: a GPU (``gpu``), the oldest and newest torch
(``compat``), Colab's runtimes (``colab``), DataLoader start methods (``start_methods``),
other Pythons and systems (``python_support``); ``bare`` executes a checkout's notebooks
each alone in a folder, with another venv's Python."""
