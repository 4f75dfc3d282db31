// Calibration page: capture, drag the four corners (TL, TR, BR, BL of the canonical view), save.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const SVGNS = "http://www.w3.org/2000/svg";
  let shot = null;   // {width, height, corners}
  let dragging = -1;

  function say(text) { $("status").textContent = text; }

  async function call(method, url, body, type) {
    const init = { method, headers: {} };
    if (body !== undefined) {
      init.body = type ? body : JSON.stringify(body);
      init.headers["Content-Type"] = type || "application/json";
    }
    const r = await fetch(url, init);
    const data = await r.json();
    if (!r.ok) throw new Error(data.error.message);
    return data;
  }

  function lerp(a, b, t) { return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]; }

  function draw() {
    const svg = $("capture-svg");
    svg.replaceChildren();
    if (!shot) return;
    svg.setAttribute("viewBox", `0 0 ${shot.width} ${shot.height}`);
    const [tl, tr, br, bl] = shot.corners;
    const line = (p, q) => {
      const l = document.createElementNS(SVGNS, "line");
      Object.entries({ x1: p[0], y1: p[1], x2: q[0], y2: q[1], class: "grid-line" }).forEach(([k, v]) => l.setAttribute(k, v));
      svg.appendChild(l);
    };
    for (let i = 0; i <= 8; i++) line(lerp(tl, tr, i / 8), lerp(bl, br, i / 8));
    for (let j = 0; j <= 4; j++) line(lerp(tl, bl, j / 4), lerp(tr, br, j / 4));
    shot.corners.forEach(([x, y], i) => {
      const c = document.createElementNS(SVGNS, "circle");
      Object.entries({ cx: x, cy: y, r: Math.max(8, shot.width / 90), class: "handle" }).forEach(([k, v]) => c.setAttribute(k, v));
      c.addEventListener("pointerdown", (e) => { dragging = i; e.preventDefault(); });
      svg.appendChild(c);
    });
  }

  function toImage(e) {
    const svg = $("capture-svg");
    const pt = svg.createSVGPoint();
    pt.x = e.clientX; pt.y = e.clientY;
    const p = pt.matrixTransform(svg.getScreenCTM().inverse());
    return [p.x, p.y];
  }
  window.addEventListener("pointermove", (e) => { if (dragging >= 0 && shot) { shot.corners[dragging] = toImage(e); draw(); } });
  window.addEventListener("pointerup", () => { dragging = -1; });

  async function captured(data) {
    shot = data;
    $("capture-img").src = `/api/calibration/capture.jpg?t=${Date.now()}`;
    $("capture-img").hidden = false;
    say(data.found ? "Board found: check the grid."
      : `Board not found${data.reason ? ` (${data.reason})` : ""}: drag the corners onto it.`);
    draw();
  }

  $("capture").addEventListener("click", async () => {
    try { await captured(await call("POST", `/api/calibration/capture?south_side=${$("south-side").value}`)); }
    catch (err) { say(err.message); }
  });
  $("upload").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    try { await captured(await call("POST", `/api/calibration/capture?south_side=${$("south-side").value}`, file, file.type || "image/jpeg")); }
    catch (err) { say(err.message); }
  });
  $("save").addEventListener("click", async () => {
    if (!shot) { say("Capture a frame first."); return; }
    try {
      const r = await call("POST", "/api/calibration", { name: $("name").value, south_side: $("south-side").value, corners: shot.corners, position: $("shown").value });
      say(`Saved ${r.name} and in use.`);
      listProfiles();
    } catch (err) { say(err.message); }
  });

  async function listProfiles() {
    const data = await call("GET", "/api/calibration");
    $("profiles").replaceChildren(...data.profiles.map((n) => {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.textContent = n === data.active ? `${n} (in use)` : `use ${n}`;
      b.addEventListener("click", () => call("POST", "/api/calibration/use", { name: n }).then(listProfiles, (err) => say(err.message)));
      li.appendChild(b);
      return li;
    }));
  }
  listProfiles();
  // the live game's South side; during a game the board shows the game's position, not the start
  call("GET", "/api/live").then((s) => {
    if (["bottom", "top", "left", "right"].includes(s.south_side)) $("south-side").value = s.south_side;
    if (s.ply > 0) $("shown").value = "live";
  }, () => {});
})();
