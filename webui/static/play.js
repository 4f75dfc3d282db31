// The play page: polls the live state, shows camera, reading, diagram, verdicts; sends corrections.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const LOW = 0.8;
  let state = null;
  let lastFrameSeq = -1;
  let frameLoading = false;
  let browserCamera = false;
  let correcting = null;   // {hole: count} while correction mode is on
  let hint = null;         // last hint answer, cleared when the position changes

  async function api(method, url, body, contentType) {
    const init = { method, headers: {} };
    if (body !== undefined) {
      if (contentType) { init.body = body; init.headers["Content-Type"] = contentType; }
      else { init.body = JSON.stringify(body); init.headers["Content-Type"] = "application/json"; }
    }
    const response = await fetch(url, init);
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error((data.error && data.error.message) || response.statusText);
    return data;
  }

  function showError(err) { $("problem").textContent = String(err.message || err); }

  // -- rendering ------------------------------------------------------------
  function render(s) {
    const positionChanged = !state || state.ply !== s.ply || state.game_id !== s.game_id;
    state = s;
    if (positionChanged) hint = null;
    $("motion").textContent = s.motion.moving ? "moving" : (s.motion.settled ? "settled" : "still…");
    $("motion").className = "badge " + (s.motion.moving ? "moving" : "still");
    $("problem").textContent = s.problem || "";
    $("to-move").textContent = s.game_over
      ? `game over: ${s.outcome.winner} wins`
      : `${s.to_move} to move · ${s.phase}`;
    $("game-label").textContent = s.game_id ? `game ${s.game_id}` : "no game live";
    $("south-side").value = s.south_side;
    for (const format of ["record", "json"]) {
      // (no game live: the one live here was deleted by another program sharing the game log)
      $(`export-${format}`).hidden = s.game_id === null;
      $(`export-${format}`).href = `/api/games/${s.game_id}/export?format=${format}`;
    }
    $("use-demo").hidden = !(s.source && s.source.kind === "demo");
    renderCamera(s);
    renderDiagram();
    renderVerdict(s);
    renderMoves(s.moves);
  }

  function renderCamera(s) {
    const img = $("camera-img");
    if (!browserCamera && s.frame_seq !== lastFrameSeq && !frameLoading && s.frame_seq > 0) {
      frameLoading = true;
      lastFrameSeq = s.frame_seq;
      img.onload = img.onerror = () => { frameLoading = false; };
      img.src = `/api/live/frame.jpg?seq=${s.frame_seq}`;
    }
    const outline = $("camera-outline");
    outline.replaceChildren();
    if (s.reading) {
      const [w, h] = s.reading.frame_size;
      outline.setAttribute("viewBox", `0 0 ${w} ${h}`);
      const pts = s.reading.corners.map(([x, y]) => `${x},${y}`).join(" ");
      const poly = document.createElementNS("http://www.w3.org/2000/svg", "polygon");
      poly.setAttribute("points", pts);
      poly.setAttribute("class", "outline");
      outline.appendChild(poly);
      const rect = $("rectified-img");
      const key = `${s.frame_seq}`;
      if (rect.dataset.key !== String(s.verdict && s.verdict.at)) {
        rect.dataset.key = String(s.verdict && s.verdict.at);
        rect.src = `/api/live/rectified.jpg?k=${key}`;
      }
    }
    BaoBoard.overlay($("rectified-overlay"), s.reading, LOW);
  }

  function renderDiagram() {
    const s = state;
    const marks = {};
    let counts = null;
    if (correcting) {
      counts = correcting;
      const expected = BaoBoard.countsOf(s.position);
      for (const [h, n] of Object.entries(correcting)) if (expected[h] !== n) marks[h] = "diff";
    } else if (s.verdict && s.needs_players) {
      for (const h of Object.keys(s.verdict.difference || {})) marks[h] = "diff";
    }
    let arrow = null;
    if (hint && !correcting) {
      marks[hint.hole] = "hint";
      const drop = hint.trace.steps.find((st) => st.kind === "drop" && st.hole !== hint.hole);
      if (drop) arrow = [hint.hole, drop.hole];
    }
    BaoBoard.draw($("diagram"), s.position, {
      counts, marks, arrow,
      onPit: correcting ? setPit : null,
      caption: correcting ? "correction mode: click a pit" : "",
    });
  }

  function renderVerdict(s) {
    const v = s.verdict;
    const box = $("verdict");
    box.className = "verdict " + (v ? v.status : "");
    if (!v) { box.textContent = "Waiting for the first move."; $("candidates").replaceChildren(); return; }
    const lines = [v.message];
    for (const m of v.moves || []) {
      const bits = [m.notation, m.legal ? "legal" : "illegal", m.kind];
      if (m.captured) bits.push(`captured ${m.captured} (${m.captured_holes.join(", ")})`);
      if (m.nyumba) bits.push(`nyumba: ${m.nyumba}`);
      if (m.game_over) bits.push(`game over: ${m.winner} wins (${m.reason})`);
      lines.push(bits.join(" · "));
    }
    if (v.latency_ms !== undefined) lines.push(`verdict ${v.latency_ms} ms after the board settled`);
    box.replaceChildren(...lines.map((t) => Object.assign(document.createElement("p"), { textContent: t })));
    const cands = $("candidates");
    cands.replaceChildren();
    if (s.needs_players) {
      const head = document.createElement("p");
      head.textContent = "Pick the move that was played, or correct the counts:";
      cands.appendChild(head);
      for (const c of v.candidates || []) {
        if (!c.moves.length) continue;
        const b = document.createElement("button");
        b.className = "candidate";
        const diff = Object.entries(c.difference).map(([h, d]) => `${h} ${d.expected}→${d.observed}`).join(", ");
        b.textContent = `${c.moves.join(" then ")}${diff ? "  (differs: " + diff + ")" : ""}`;
        b.addEventListener("click", () => api("POST", "/api/live/confirm", { moves: c.moves, ply: state.ply, game: state.game_id }).then(render, showError));
        cands.appendChild(b);
      }
    }
  }

  function renderMoves(moves) {
    const list = $("move-list");
    list.replaceChildren();
    for (let i = 0; i < moves.length; i += 2) {
      const li = document.createElement("li");
      li.append(BaoBoard.moveLabel(moves[i]));
      if (moves[i + 1]) li.append("  ", BaoBoard.moveLabel(moves[i + 1]));
      list.appendChild(li);
    }
    $("move-legend").hidden = !moves.some((m) => m.remark);
    list.scrollTop = list.scrollHeight;
  }

  // -- polling and browser camera -----------------------------------------
  async function poll() {
    try { if (!browserCamera) render(await api("GET", "/api/live")); }
    catch (err) { showError(err); }
    setTimeout(poll, 300);
  }

  async function startBrowserCamera() {
    try {
      await api("POST", "/api/live/source", { kind: "browser" });
      const stream = await navigator.mediaDevices.getUserMedia({ video: { width: 1280, height: 720 }, audio: false });
      const video = $("camera-video");
      video.srcObject = stream;
      video.hidden = false;
      $("camera-img").hidden = true;
      browserCamera = true;
      await video.play();
      sendFrames(video);
    } catch (err) { showError(err); }
  }

  async function sendFrames(video) {
    const canvas = document.createElement("canvas");
    while (browserCamera) {
      if (video.videoWidth) {
        const scale = Math.min(1, 1280 / video.videoWidth);
        canvas.width = Math.round(video.videoWidth * scale);
        canvas.height = Math.round(video.videoHeight * scale);
        canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
        const blob = await new Promise((ok) => canvas.toBlob(ok, "image/jpeg", 0.9));
        try { render(await api("POST", "/api/frames", blob, "image/jpeg")); }
        catch (err) { showError(err); }
      }
      await new Promise((ok) => setTimeout(ok, 150));
    }
  }

  // -- corrections, hint, game -----------------------------------------------
  function setPit(hole) {
    const answer = window.prompt(`Seeds in ${hole}:`, String(correcting[hole]));
    if (answer === null) return;
    const n = Number(answer);
    if (!Number.isInteger(n) || n < 0 || n > 64) { showError(new Error(`not a count: ${answer}`)); return; }
    correcting[hole] = n;
    renderDiagram();
  }

  $("correct-toggle").addEventListener("click", () => {
    const base = state.reading ? state.reading.counts : BaoBoard.countsOf(state.position);
    correcting = Object.assign({}, base);
    $("correction").hidden = false;
    renderDiagram();
  });
  $("correct-cancel").addEventListener("click", () => { correcting = null; $("correction").hidden = true; renderDiagram(); });
  $("correct-send").addEventListener("click", async () => {
    try {
      const s = await api("POST", "/api/live/correct", { counts: correcting, ply: state.ply, game: state.game_id });
      correcting = null;
      $("correction").hidden = true;
      render(s);
    } catch (err) { showError(err); }
  });
  $("hint").addEventListener("click", async () => {
    $("hint-text").textContent = "thinking…";
    try {
      hint = await api("POST", "/api/hint", { time_limit: 1.0 });
      const proven = hint.proven ? ` · ${hint.proven}` : "";
      $("hint-text").textContent = `Hint: ${hint.move} (evaluation ${hint.evaluation} for ${state.to_move}${proven}; line ${hint.pv.join(" ")})`;
      renderDiagram();
    } catch (err) { $("hint-text").textContent = String(err.message); }
  });
  $("undo").addEventListener("click", () => api("POST", "/api/live/undo", state ? { ply: state.ply, game: state.game_id } : undefined).then(render, showError));
  $("new-game").addEventListener("click", () => {
    if (window.confirm("Start a new game from the start position?")) api("POST", "/api/live/new", {}).then(render, showError);
  });
  $("use-browser-camera").addEventListener("click", startBrowserCamera);
  $("use-server-camera").addEventListener("click", () => {
    browserCamera = false;
    $("camera-video").hidden = true;
    $("camera-img").hidden = false;
    api("POST", "/api/live/source", { kind: "camera", index: 0 }).then(render, showError);
  });
  $("use-demo").addEventListener("click", () => api("POST", "/api/live/source", { kind: "demo" }).then(render, showError));
  $("south-side").addEventListener("change", (e) => api("POST", "/api/live/settings", { south_side: e.target.value }).then(render, showError));

  // ?camera=browser starts the browser camera at once (phones, tests)
  if (new URLSearchParams(location.search).get("camera") === "browser") startBrowserCamera();
  poll();
})();
