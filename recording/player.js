// The recording's player: a frame, a scrub bar with the calls and approvals
// marked on it, and the list of marks, each a button that jumps there. The
// data is JSON in <script id="recording-data">; every text from it is set as
// textContent, never parsed as markup.
(function () {
  var data = document.getElementById("recording-data");
  var root = document.getElementById("recording");
  if (!data || !root) return;
  var d = JSON.parse(data.textContent);
  var img = root.querySelector(".rec-frame"), scrub = root.querySelector(".rec-scrub"),
      clock = root.querySelector(".rec-time"), play = root.querySelector(".rec-play"),
      bar = root.querySelector(".rec-bar"), list = root.querySelector(".rec-marks");
  var dur = Math.max(d.duration, 1), now = 0, timer = null;
  scrub.max = String(dur);
  function fmt(ms) {
    var s = Math.floor(ms / 1000);
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0") + "." + String(Math.floor(ms % 1000 / 100));
  }
  // The newest frame at or before t.
  function frameAt(t) {
    var lo = 0, hi = d.frames.length - 1, at = -1;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (d.frames[mid].t <= t) { at = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return at < 0 && d.frames.length ? 0 : at;
  }
  function show(t) {
    now = Math.min(Math.max(0, t), dur);
    scrub.value = String(now);
    var i = frameAt(now);
    if (i >= 0 && img.dataset.frame !== String(i)) {
      img.src = d.frames[i].src;
      img.dataset.frame = String(i);
    }
    root.dataset.time = String(now);
    clock.textContent = fmt(now) + " / " + fmt(dur) + (i >= 0 ? " · frame " + (i + 1) + " of " + d.frames.length : " · no frames");
    list.querySelectorAll("button").forEach(function (b) {
      b.classList.toggle("rec-now", Number(b.dataset.t) <= now && now <= Number(b.dataset.end));
    });
  }
  function mark(kind, t, end, label, title) {
    var tick = document.createElement("span");
    tick.className = "rec-tick " + kind;
    tick.style.left = (100 * t / dur) + "%";
    tick.title = title;
    tick.addEventListener("click", function () { show(t); });
    bar.appendChild(tick);
    var li = document.createElement("li"), b = document.createElement("button");
    b.type = "button";
    b.className = kind;
    b.dataset.t = String(t);
    b.dataset.end = String(end);
    b.textContent = fmt(t) + " " + label;
    b.addEventListener("click", function () { stop(); show(t); });
    li.appendChild(b);
    return li;
  }
  var marks = [];
  d.calls.forEach(function (c) {
    var label = c.tool + (c.target ? " " + c.target : "") + " → " + c.code;
    marks.push([c.t, mark("rec-call", c.t, c.end, label, label)]);
  });
  d.approvals.forEach(function (a) {
    var label = "approval: " + a.action + " — " + (a.approved ? "approved" : "rejected") + " by " + a.channel;
    marks.push([a.t, mark("rec-approval " + (a.approved ? "rec-approved" : "rec-rejected"), a.t, a.decided, label, label)]);
  });
  d.notes.forEach(function (n) {
    marks.push([n.t, mark("rec-note", n.t, n.t, "note: " + n.text, n.text)]);
  });
  marks.sort(function (x, y) { return x[0] - y[0]; }).forEach(function (m) { list.appendChild(m[1]); });
  function stop() {
    if (timer) clearInterval(timer);
    timer = null;
    play.textContent = "Play";
  }
  play.addEventListener("click", function () {
    if (timer) return stop();
    if (now >= dur) show(0);
    play.textContent = "Pause";
    timer = setInterval(function () {
      show(now + 100);
      if (now >= dur) stop();
    }, 100);
  });
  scrub.addEventListener("input", function () { stop(); show(Number(scrub.value)); });
  show(0);
})();
