// Board diagrams in SVG: the canonical view, North on top (b8..b1 / a8..a1 / A1..A8 / B1..B8).
"use strict";

const BaoBoard = (() => {
  const SVGNS = "http://www.w3.org/2000/svg";
  const PIT = 56;       // pit cell size in SVG units
  const PAD = 34;       // room for labels and reserves

  const ROWS = [
    ["north", "back", "b", [8, 7, 6, 5, 4, 3, 2, 1]],
    ["north", "front", "a", [8, 7, 6, 5, 4, 3, 2, 1]],
    ["south", "front", "A", [1, 2, 3, 4, 5, 6, 7, 8]],
    ["south", "back", "B", [1, 2, 3, 4, 5, 6, 7, 8]],
  ];

  // hole name -> [row, col] in the canonical view
  const CELL = {};
  ROWS.forEach(([, , letter, nums], r) => nums.forEach((n, c) => { CELL[letter + n] = [r, c]; }));

  function el(name, attrs, text) {
    const node = document.createElementNS(SVGNS, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function countsOf(position) {
    const out = {};
    for (const [side, row, letter] of ROWS) {
      position[side][row].forEach((v, i) => { out[letter + (i + 1)] = v; });
    }
    return out;
  }

  function centre(hole) {
    const [r, c] = CELL[hole];
    return [PAD + c * PIT + PIT / 2, PAD + r * PIT + PIT / 2 + (r >= 2 ? 10 : 0)];
  }

  // Draw `position` (Position JSON) into `svg`.
  // opts: {counts: {hole: n} overriding the position's, marks: {hole: "low"|"diff"|"hint"},
  //        arrow: [fromHole, toHole], onPit: fn(hole), hand: n, caption: str}
  function draw(svg, position, opts = {}) {
    const counts = Object.assign(countsOf(position), opts.counts || {});
    const marks = opts.marks || {};
    const W = PAD * 2 + PIT * 8, H = PAD * 2 + PIT * 4 + 10;
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.replaceChildren();
    svg.appendChild(el("rect", { x: 4, y: 4, width: W - 8, height: H - 8, rx: 14, class: "wood" }));
    svg.appendChild(el("line", { x1: PAD, x2: W - PAD, y1: PAD + 2 * PIT + 5, y2: PAD + 2 * PIT + 5, class: "midline" }));
    for (const hole of Object.keys(CELL)) {
      const [x, y] = centre(hole);
      const nyumba = hole === "A5" || hole === "a5";
      const g = el("g", { class: "pit" + (marks[hole] ? " mark-" + marks[hole] : ""), "data-hole": hole });
      if (nyumba) {
        g.appendChild(el("rect", { x: x - PIT / 2 + 5, y: y - PIT / 2 + 5, width: PIT - 10, height: PIT - 10, rx: 4, class: "hole" }));
      } else {
        g.appendChild(el("circle", { cx: x, cy: y, r: PIT / 2 - 5, class: "hole" }));
      }
      const n = counts[hole];
      g.appendChild(el("text", { x: x, y: y + 6, class: "count" }, n ? String(n) : ""));
      g.appendChild(el("text", { x: x, y: y - 13, class: "name" }, hole));  // inside the pit, above its count
      if (opts.onPit) {
        g.style.cursor = "pointer";
        g.addEventListener("click", () => opts.onPit(hole));
      }
      svg.appendChild(g);
    }
    const tm = position.to_move;
    svg.appendChild(el("text", { x: W - 10, y: 22, class: "reserve" + (tm === "north" ? " to-move" : "") },
      `North reserve ${position.north.reserve}${tm === "north" ? " ◀ to move" : ""}`));
    svg.appendChild(el("text", { x: W - 10, y: H - 8, class: "reserve" + (tm === "south" ? " to-move" : "") },
      `South reserve ${position.south.reserve}${tm === "south" ? " ◀ to move" : ""}`));
    if (opts.hand) {
      svg.appendChild(el("text", { x: 12, y: 22, class: "hand" }, `in hand: ${opts.hand}`));
    }
    if (opts.caption) {
      svg.appendChild(el("text", { x: 12, y: H - 8, class: "caption" }, opts.caption));
    }
    if (opts.arrow && CELL[opts.arrow[0]] && CELL[opts.arrow[1]]) {
      const defs = el("defs");
      const marker = el("marker", { id: "arrowhead", markerWidth: 8, markerHeight: 8, refX: 6, refY: 4, orient: "auto" });
      marker.appendChild(el("path", { d: "M0,0 L8,4 L0,8 z", class: "arrowhead" }));
      defs.appendChild(marker);
      svg.appendChild(defs);
      const [x1, y1] = centre(opts.arrow[0]);
      const [x2, y2] = centre(opts.arrow[1]);
      svg.appendChild(el("line", { x1, y1, x2, y2, class: "arrow", "marker-end": "url(#arrowhead)" }));
    }
  }

  // Overlay read counts on the rectified board image (canonical view, reading.rectified_size px,
  // the board in the box reading.rectified_board [x, y, w, h] with its surroundings around it);
  // pits at reading.pits (rectified px) when the vision gave their centres, else on a 4 x 8 grid.
  function overlay(svg, reading, lowThreshold) {
    svg.replaceChildren();
    if (!reading) return;
    const [w, h] = reading.rectified_size || [640, 273];
    const [bx0, by0, bw, bh] = reading.rectified_board || [0, 0, w, h];
    svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
    svg.setAttribute("preserveAspectRatio", "none");
    if (svg.parentElement) svg.parentElement.style.aspectRatio = `${w} / ${h}`;
    // where the board was taken to end: checkable against the wood's own edge
    svg.appendChild(el("rect", { class: "board-edge", x: bx0, y: by0, width: bw, height: bh }));
    const pits = reading.pits || {};
    for (const [hole, [r, c]] of Object.entries(CELL)) {
      const [x, y] = pits[hole] || [bx0 + (c + 0.5) * bw / 8, by0 + (r + 0.5) * bh / 4];
      const conf = reading.confidence[hole];
      const low = reading.low_confidence ? reading.low_confidence.includes(hole) : conf < lowThreshold;
      // a ring around the pit and the count in a badge at its upper left, so the
      // seeds themselves stay visible to check the count against
      const p = Math.min(bw / 8, bh / 4);
      // pits read again more closely before the view was refereed (their second reading shown)
      const again = (reading.looked_again || []).includes(hole);
      const g = el("g", { class: "read" + (low ? " low" : "") + (again ? " again" : ""), "data-hole": hole });
      g.appendChild(el("circle", { class: "ring", cx: x, cy: y, r: p * 0.4 }));
      const bx = x - p * 0.34, by = y - p * 0.3;
      g.appendChild(el("circle", { class: "badge", cx: bx, cy: by, r: p * 0.15 }));
      g.appendChild(el("text", { x: bx, y: by + p * 0.07, "font-size": p * 0.2 }, String(reading.counts[hole])));
      g.appendChild(el("title", {}, `${hole}: ${reading.counts[hole]} (confidence ${conf}${again ? ", read again more closely" : ""})`));
      svg.appendChild(g);
    }
  }

  // Replay one move's trace step by step; calls render(counts, reserves, hand, hole) per step.
  function traceFrames(before, trace) {
    const counts = countsOf(before);
    const reserve = { south: before.south.reserve, north: before.north.reserve };
    const mover = before.to_move;
    let hand = 0;
    const frames = [];
    for (const step of trace.steps) {
      switch (step.kind) {
        case "reserve": reserve[mover] -= 1; hand += 1; break;
        case "pickup": case "safari": hand += counts[step.hole]; counts[step.hole] = 0; break;
        case "tax": counts[step.hole] -= 2; hand += 2; break;
        case "capture": hand += counts[step.hole]; counts[step.hole] = 0; break;
        case "drop": counts[step.hole] += 1; hand -= 1; break;
        case "keep": reserve[mover] += hand; hand = 0; break;
        default: break;
      }
      frames.push({ counts: Object.assign({}, counts), reserve: Object.assign({}, reserve), hand, hole: step.hole, kind: step.kind });
    }
    return frames;
  }

  // a logged move for the move lists: marked when a scribe should look at it (its remark,
  // webui.store.LoggedMove.remark: "?" found by the referee from other views, "✓" confirmed
  // by the players), the remark shown on pointing at it
  function moveLabel(m) {
    const span = document.createElement("span");
    span.textContent = m.move;
    if (m.remark) {
      span.className = m.source === "players" ? "move by-players" : "move noted";
      span.title = m.remark;
    }
    return span;
  }

  return { draw, overlay, traceFrames, countsOf, moveLabel, CELL };
})();
