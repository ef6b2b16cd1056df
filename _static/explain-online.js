// The "Explain an error" page (book/explain-online.md). Jupyter Book loads every script
// of _static on every page: this one does nothing where there is no #explain-online.
// It starts Pyodide from the book's own _static/pyodide/ (no CDN), unpacks the real
// ice_lab.explain source (_static/ice_lab_explain.zip, written by make book) and calls it.
(function () {
  "use strict";
  // The theme loads this script in <head>: remember where it came from, wait for the body.
  const staticUrl = new URL(".", document.currentScript.src);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", () => page(staticUrl));
  } else {
    page(staticUrl);
  }
})();

function page(staticUrl) {
  "use strict";
  const root = document.getElementById("explain-online");
  if (!root) return;
  const bookUrl = new URL("../", staticUrl);
  const input = document.getElementById("explain-input");
  const button = document.getElementById("explain-button");
  const status = document.getElementById("explain-status");
  const result = document.getElementById("explain-result");

  // Python run once: the same path as `ice-lab explain LOG` (one error, or a log's root cause).
  const GLUE = `
import json
from ice_lab.explainer import explain
from ice_lab.explainer.logs import find_errors, root_cause

def page_explain(text):
    errors = find_errors(text)
    chosen, rank = root_cause(text, errors) if len(errors) > 1 else (None, None)
    d = explain(chosen.text if chosen is not None else text)
    return json.dumps({"kind": d.kind, "summary": d.summary, "causes": d.causes,
                       "fixes": d.fixes, "chapter": d.chapter,
                       "line": chosen.line if chosen is not None else None, "rank": rank})
`;

  function element(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (className) node.className = className;
    return node;
  }

  function list(title, items) {
    if (!items.length) return [];
    const ul = element("ul");
    for (const item of items) ul.appendChild(element("li", item));
    return [element("p", title), ul];
  }

  function show(d) {
    result.replaceChildren();
    const head = element("p");
    head.appendChild(element("strong", "[" + d.kind + "]", "explain-kind"));
    head.appendChild(document.createTextNode(" " + d.summary));
    result.appendChild(head);
    if (d.line !== null) {
      const where = "From line " + d.line + " of the log" +
        (d.rank !== null ? " (rank " + d.rank + ", the root cause torchrun reports)." : ".");
      result.appendChild(element("p", where, "explain-where"));
    }
    for (const node of [...list("Likely causes:", d.causes), ...list("Fixes:", d.fixes)]) {
      result.appendChild(node);
    }
    const read = element("p", "Read: ");
    const link = element("a", d.chapter);
    // "book/<page>.ipynb#<anchor>": the page's .html in the built book, at that section
    link.href = new URL(d.chapter.replace(/\.ipynb(?=#|$)/, ".html"), bookUrl).href;
    link.className = "explain-chapter";
    read.appendChild(link);
    result.appendChild(read);
  }

  async function start() {
    const { loadPyodide } = await import(new URL("pyodide/pyodide.mjs", staticUrl).href);
    const pyodide = await loadPyodide({ indexURL: new URL("pyodide/", staticUrl).href });
    const zip = await fetch(new URL("ice_lab_explain.zip", staticUrl));
    if (!zip.ok) throw new Error("ice_lab_explain.zip: HTTP " + zip.status);
    pyodide.unpackArchive(new Uint8Array(await zip.arrayBuffer()), "zip");
    pyodide.runPython(GLUE);
    const explainText = pyodide.globals.get("page_explain");
    button.disabled = false;
    status.textContent = "Ready: ice_lab.explain runs in your browser.";
    root.dataset.ready = "true";
    button.addEventListener("click", () => {
      const text = input.value;
      if (!text.trim()) {
        status.textContent = "Paste an error message first.";
        return;
      }
      show(JSON.parse(explainText(text)));
      status.textContent = "Explained.";
    });
  }

  start().catch((error) => {
    status.textContent = "Python could not start in this browser (" + error.message +
      "). In a notebook: from ice_lab import explain; explain(err).";
    root.dataset.ready = "failed";
  });
}
