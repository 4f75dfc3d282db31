// Replay of a logged game, the sowing of each move animated from the engine's trace.
"use strict";

(async () => {
  const $ = (id) => document.getElementById(id);
  const gameId = $("replay").dataset.game;
  const data = await (await fetch(`/api/games/${gameId}/replay`)).json();
  let ply = 0;            // moves shown as played
  let animating = null;
  let autoplay = false;

  function positionAt(n) { return n === 0 ? data.start : data.moves[n - 1].after; }

  function show(n) {
    ply = n;
    BaoBoard.draw($("diagram"), positionAt(n), { caption: n ? `after ${data.moves[n - 1].move}` : "start" });
    document.querySelectorAll("#moves li").forEach((li, i) => li.classList.toggle("current", i === n - 1));
    $("caption").textContent = n ? verdictText(data.moves[n - 1]) : "Start position.";
  }

  function verdictText(m) {
    const v = m.verdict || {};
    const bits = [`${m.ply}. ${m.move}`, v.kind || ""];
    if (v.captured) bits.push(`captured ${v.captured}`);
    if (v.nyumba) bits.push(`nyumba: ${v.nyumba}`);
    if (v.game_over) bits.push(`game over: ${v.winner} wins`);
    if (m.remark) bits.push(m.remark);
    return bits.filter(Boolean).join(" · ");
  }

  function animate(n) {   // play move n (1-based) seed by seed
    if (n < 1 || n > data.moves.length) return;
    stop();
    const m = data.moves[n - 1];
    const frames = BaoBoard.traceFrames(m.before, m.trace);
    let i = 0;
    const step = () => {
      if (i >= frames.length) { animating = null; show(n); if (autoplay) animating = setTimeout(() => animate(n + 1), 500); return; }
      const f = frames[i++];
      const pos = JSON.parse(JSON.stringify(m.before));
      pos.south.reserve = f.reserve.south; pos.north.reserve = f.reserve.north;
      const marks = {}; if (f.hole) marks[f.hole] = "active";
      BaoBoard.draw($("diagram"), pos, { counts: f.counts, marks, hand: f.hand, caption: `${m.move}: ${f.kind} ${f.hole || ""}` });
      animating = setTimeout(step, Number($("speed").value));
    };
    step();
  }

  function stop() { if (animating) { clearTimeout(animating); animating = null; } }

  data.moves.forEach((m, i) => {
    const li = document.createElement("li");
    li.append(BaoBoard.moveLabel(m));
    li.style.cursor = "pointer";
    li.addEventListener("click", () => { autoplay = false; stop(); show(i + 1); });
    $("moves").appendChild(li);
  });
  $("move-legend").hidden = !data.moves.some((m) => m.remark);
  $("first").onclick = () => { autoplay = false; stop(); show(0); };
  $("last").onclick = () => { autoplay = false; stop(); show(data.moves.length); };
  $("prev").onclick = () => { autoplay = false; stop(); show(Math.max(0, ply - 1)); };
  $("next").onclick = () => { autoplay = false; animate(ply + 1); };
  $("play").onclick = () => { autoplay = true; animate(ply + 1); };
  show(0);
})();
