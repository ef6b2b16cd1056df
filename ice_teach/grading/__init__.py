"""Grading a folder of lab submissions with nbgrader (``ice-teach grade``; book/teachers.md).

``cli`` is the command; each student is graded by ``worker`` in a child process of its
own (``python -m ice_teach.grading.worker JOB``); ``preprocessors`` and ``guard`` are the
nbgrader preprocessors it adds; ``sandbox`` puts each kernel under bubblewrap;
``summary`` writes what a teacher reads first; ``adversarial`` makes the submissions the
tests grade. What is handed out besides the grades CSV: ``feedback`` (one Markdown file
per student: each check, its points, each failure's hint), ``export`` (the gradebook
CSVs for Canvas and Moodle) and ``report_html`` (the class summary as a page).
"""
