// The respondent page: one HTML shell, one stylesheet and one script (no inline script, so a strict
// Content-Security-Policy holds), phone first. The script keeps the respondent id in localStorage
// per survey link, so a reload resumes; `?pid=` carries a panel's respondent id.

export const SURVEY_PAGE_CSS = `
:root{--ink:#14213d;--muted:#5b6475;--line:#d8dde6;--brand:#4f46e5;--brand-ink:#fff;--bg:#f6f7fb;--bad:#b42318;--card:#fff}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
header{background:var(--card);border-bottom:1px solid var(--line);padding:14px 20px;display:flex;align-items:center;gap:10px}
header .logo{width:28px;height:28px;border-radius:8px;background:var(--brand);color:#fff;display:grid;place-items:center;font-weight:700}
header .name{font-weight:600}
main{max-width:640px;margin:0 auto;padding:20px 16px 48px}
.progress{height:6px;background:var(--line);border-radius:99px;overflow:hidden;margin:4px 0 20px}
.progress>div{height:100%;background:var(--brand);transition:width .3s}
h1{font-size:1.35rem;margin:0 0 16px}
.concept{background:var(--card);border:1px solid var(--line);border-left:4px solid var(--brand);border-radius:12px;padding:16px 18px;margin-bottom:20px}
.concept strong{display:block;font-size:1.1rem;margin-bottom:4px}
.concept-image{display:block;max-width:100%;max-height:320px;border-radius:8px;margin:0 auto 12px}
fieldset{border:1px solid var(--line);background:var(--card);border-radius:12px;padding:16px 18px;margin:0 0 16px}
legend{padding:0 4px;font-weight:600}
.qtext{margin:0 0 10px}
label.opt{display:flex;gap:10px;align-items:flex-start;padding:10px 12px;border:1px solid var(--line);border-radius:10px;margin:8px 0;cursor:pointer}
label.opt:hover{border-color:var(--brand)}
label.opt input{margin-top:4px;width:18px;height:18px}
select,textarea,input[type=number]{width:100%;font:inherit;padding:10px 12px;border:1px solid var(--line);border-radius:10px;background:#fff}
.price{display:flex;align-items:center;gap:8px}.price span{font-weight:600}
.err{color:var(--bad);font-size:.9rem;margin-top:6px}
fieldset.bad{border-color:var(--bad)}
button{font:inherit;font-weight:600;background:var(--brand);color:var(--brand-ink);border:0;border-radius:10px;padding:12px 20px;width:100%;cursor:pointer}
button:disabled{opacity:.6}
:focus-visible{outline:3px solid #a5b4fc;outline-offset:2px}
.end{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:28px;text-align:center}
.end .big{font-size:2.2rem}
@media (min-width:700px){main{padding-top:36px}button{width:auto}}
`;

export const SURVEY_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Survey</title>
<link rel="stylesheet" href="/s/assets/survey.css">
<script src="/s/assets/survey.js" defer></script>
</head>
<body>
<header><div class="logo" aria-hidden="true">i</div><div class="name">Ideally survey</div></header>
<main id="app" aria-live="polite"><p>Loading…</p></main>
</body>
</html>`;

export const SURVEY_PAGE_SCRIPT = `"use strict";
(function () {
  var link = location.pathname.split("/").filter(Boolean)[1];
  var app = document.getElementById("app");
  var pid = new URLSearchParams(location.search).get("pid");
  // A sample supplier's respondent: the entry link's query goes to the server as received (signed).
  var entryQuery = /(^|[?&])supplier=/.test(location.search) ? location.search.slice(1) : null;
  var storeKey = "ideally-survey-" + link + (entryQuery ? "-" + entryQuery : "");
  // Traits of the device, hashed (FNV-1a): the same device twice in a run is flagged as a duplicate.
  var fingerprint = (function () {
    var s = [navigator.userAgent, navigator.language, screen.width + "x" + screen.height, screen.colorDepth, new Date().getTimezoneOffset(), navigator.hardwareConcurrency || 0].join("|");
    var h = 0x811c9dc5;
    for (var i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
    return "fp-" + h.toString(16) + "-" + s.length;
  })();

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) {
      if (k === "text") e.textContent = attrs[k];
      else if (k in e && k !== "list") e[k] = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
    (children || []).forEach(function (c) { if (c) e.appendChild(c); });
    return e;
  }

  function api(method, path, body) {
    return fetch("/s/api/" + link + path, {
      method: method,
      headers: body ? { "content-type": "application/json" } : {},
      body: body ? JSON.stringify(body) : undefined,
    }).then(function (r) { return r.json().then(function (j) { return { status: r.status, body: j }; }); });
  }

  function end(message, status) {
    app.innerHTML = "";
    app.appendChild(el("div", { className: "end", role: "status" }, [
      el("div", { className: "big", text: status === "Complete" ? "🎉" : "🙏", "aria-hidden": "true" }),
      el("h1", { text: status === "Complete" ? "All done" : "Thank you" }),
      el("p", { text: message }),
    ]));
  }

  function render(v) {
    if (v.status !== "InProgress") {
      end(v.message, v.status);
      if (v.redirectUrl) setTimeout(function () { location.replace(v.redirectUrl); }, 1200);
      return;
    }
    var p = v.page;
    app.innerHTML = "";
    var bar = el("div", { className: "progress", role: "progressbar", "aria-valuemin": "0", "aria-valuemax": String(p.total), "aria-valuenow": String(p.index) }, [el("div")]);
    bar.firstChild.style.width = Math.round((p.index / p.total) * 100) + "%";
    app.appendChild(bar);
    app.appendChild(el("h1", { text: p.heading }));
    if (p.concept) {
      app.appendChild(el("section", { className: "concept", "aria-label": "The idea" }, [
        p.concept.imageUrl ? el("img", { src: p.concept.imageUrl, alt: p.concept.text, className: "concept-image" }) : null,
        el("strong", { text: p.concept.text }),
        p.concept.description ? el("p", { text: p.concept.description }) : null,
      ]));
    }
    var form = el("form", { noValidate: true });
    p.questions.forEach(function (q, qi) {
      var fs = el("fieldset", { id: "q-" + q.key });
      var legendId = "l-" + qi;
      fs.appendChild(el("legend", { id: legendId, text: q.title || "Question " + (qi + 1) }));
      if (q.text && q.text !== q.title) fs.appendChild(el("p", { className: "qtext", text: q.text }));
      if (q.type === "single" || q.type === "multiple") {
        q.options.forEach(function (o) {
          var input = el("input", { type: q.type === "single" ? "radio" : "checkbox", name: q.key, value: String(o.id) });
          if (q.type === "multiple") input.addEventListener("change", function () {
            if (!input.checked) return;
            form.querySelectorAll('input[name="' + q.key + '"]').forEach(function (other) {
              var otherOpt = q.options.find(function (x) { return String(x.id) === other.value; });
              if (other !== input && (o.exclusive || (otherOpt && otherOpt.exclusive))) other.checked = false;
            });
          });
          fs.appendChild(el("label", { className: "opt" }, [input, el("span", { text: o.text })]));
        });
      } else if (q.type === "dropdown") {
        var sel = el("select", { name: q.key, "aria-labelledby": legendId }, [el("option", { value: "", text: "Choose…" })]);
        q.options.forEach(function (o) { sel.appendChild(el("option", { value: String(o.id), text: o.text })); });
        fs.appendChild(sel);
      } else if (q.type === "text") {
        fs.appendChild(el("textarea", { name: q.key, rows: 4, maxLength: 2000, "aria-labelledby": legendId }));
      } else {
        fs.appendChild(el("div", { className: "price" }, [el("span", { text: v.currencySymbol }), el("input", { type: "number", name: q.key, min: "0", step: "0.01", inputMode: "decimal", "aria-labelledby": legendId })]));
      }
      form.appendChild(fs);
    });
    var button = el("button", { type: "submit", text: p.index + 1 >= p.total ? "Finish" : "Next" });
    form.appendChild(button);
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var answers = {};
      p.questions.forEach(function (q) {
        if (q.type === "single") { var c = form.querySelector('input[name="' + q.key + '"]:checked'); if (c) answers[q.key] = Number(c.value); }
        else if (q.type === "multiple") { answers[q.key] = Array.prototype.map.call(form.querySelectorAll('input[name="' + q.key + '"]:checked'), function (c) { return Number(c.value); }); }
        else if (q.type === "dropdown") { var s = form.elements[q.key].value; if (s) answers[q.key] = Number(s); }
        else if (q.type === "text") { answers[q.key] = form.elements[q.key].value; }
        else { var n = form.elements[q.key].value; if (n !== "") answers[q.key] = Number(n); }
      });
      button.disabled = true;
      api("POST", "/" + v.respondentId + "/answers", { pageId: p.id, answers: answers }).then(function (r) {
        button.disabled = false;
        form.querySelectorAll(".err").forEach(function (e) { e.remove(); });
        form.querySelectorAll("fieldset.bad").forEach(function (e) { e.classList.remove("bad"); });
        if (r.status === 200) { render(r.body); window.scrollTo(0, 0); return; }
        if (r.status === 400 && r.body.errors) {
          r.body.errors.forEach(function (e) {
            var fs = document.getElementById("q-" + e.path);
            if (fs) { fs.classList.add("bad"); fs.appendChild(el("div", { className: "err", role: "alert", text: e.message })); }
          });
          var first = form.querySelector("fieldset.bad"); if (first) first.scrollIntoView({ block: "center" });
          return;
        }
        if (r.status === 409) { load(); return; }
        end(r.body.message || "Something went wrong. Please try again later.", "Error");
      });
    });
    app.appendChild(form);
  }

  function load() {
    var id = localStorage.getItem(storeKey);
    var start = { deviceFingerprint: fingerprint };
    if (entryQuery) start.entryQuery = entryQuery;
    else if (pid) start.panelRespondentId = pid;
    var go = id ? api("GET", "/" + id) : api("POST", "/start", start);
    go.then(function (r) {
      if (r.status === 200) { localStorage.setItem(storeKey, r.body.respondentId); render(r.body); }
      else if (id && r.status === 404) { localStorage.removeItem(storeKey); load(); }
      else end(r.body.message || "This survey is not available.", "Error");
    });
  }
  load();
})();
`;
