
(function () {
  "use strict";
  const D = JSON.parse(document.getElementById("data").textContent);
  const S = D.steps, N = S.length, M = D.meta;
  const $ = (id) => document.getElementById(id);
  let cur = 0;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function card(id, classes) {
    const f = D.faces[String(id)];
    const c = el("span", "card");
    c.dataset.id = String(id);
    c.dataset.card = f;
    if (f === "JK") {
      c.classList.add("joker");
      c.title = "joker";
      c.append(el("b", null, "JK"), el("i", null, "\u2605"));
    } else {
      const suit = f.slice(-1), rank = f.slice(0, -1);
      c.classList.add(suit === "\u2665" || suit === "\u2666" ? "red" : "black");
      c.title = f;
      c.append(el("b", null, rank), el("i", null, suit));
    }
    for (const x of classes || []) c.classList.add(x);
    return c;
  }

  function back() {
    const c = el("span", "card back");
    c.dataset.card = "back";
    return c;
  }

  function build() {
    document.title = $("title").textContent;
    const names = M.seats.map((s, i) => "seat " + i + ": " + (s.strategy || "-"));
    $("subtitle").textContent = names.join(", ") +
      (M.dealer !== null && M.dealer !== undefined ? "; dealer seat " + M.dealer : "") +
      (M.seat !== null ? "; seen by seat " + M.seat : "");
    const seats = $("seats");
    M.seats.forEach((s, i) => {
      const box = el("div", "seat");
      box.id = "seat-" + i;
      const head = el("div", "head");
      head.id = "seat-head-" + i;
      const hand = el("div", "cards");
      hand.id = "hand-" + i;
      box.append(head, hand);
      seats.append(box);
    });
    const sides = $("sides");
    for (let t = 0; t < M.sides; t++) {
      const box = el("div", "side");
      box.id = "side-" + t;
      const h = el("h3");
      const lab = el("span", "label");
      lab.id = "side-label-" + t;
      const sc = el("span", "score");
      sc.id = "score-" + t;
      h.append(lab, document.createTextNode(": "), sc);
      const melds = el("div", "melds");
      melds.id = "melds-" + t;
      box.append(h, melds);
      sides.append(box);
    }
    const log = $("log");
    S.forEach((s, i) => {
      const li = el("li", null, s.text);
      li.addEventListener("click", () => show(i));
      log.append(li);
    });
    if (D.review) buildReview(D.review);
    const slider = $("slider");
    slider.max = String(N - 1);
    slider.addEventListener("input", () => show(Number(slider.value)));
    $("prev").addEventListener("click", () => show(cur - 1));
    $("next").addEventListener("click", () => show(cur + 1));
    document.addEventListener("keydown", (e) => {
      if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
        e.preventDefault();
        show(cur + (e.key === "ArrowRight" ? 1 : -1));
      }
    });
  }

  function buildReview(R) {
    $("review").hidden = false;
    $("review-title").textContent = R.title;
    const tab = $("review-table");
    const head = el("tr");
    R.summary.columns.forEach((c) => head.append(el("th", null, c)));
    tab.append(head);
    R.summary.rows.forEach((r) => {
      const tr = el("tr");
      r.forEach((v) => tr.append(el("td", null, v === null ? "" : v)));
      tab.append(tr);
    });
    const marks = $("marks"), list = $("review-marks");
    marks.hidden = R.marks.length === 0;
    $("review-marks-head").textContent = R.marks.length ?
      "Marked decisions (click to go to the step):" : "No decision marked.";
    R.marks.forEach((m) => {
      const tick = el("span", "mark " + m.mark);
      tick.dataset.step = String(m.step);
      tick.dataset.mark = m.mark;
      tick.title = m.text;
      tick.style.left = (N > 1 ? 100 * m.step / (N - 1) : 0) + "%";
      tick.addEventListener("click", () => show(m.step));
      marks.append(tick);
      const li = el("li", m.mark, m.text);
      li.dataset.step = String(m.step);
      li.addEventListener("click", () => show(m.step));
      list.append(li);
    });
  }

  function pozText(p, k) {
    if (p.state === "left") return "pozzetto " + k + ": " + p.count + " cards, not taken";
    if (p.state === "stock") return "pozzetto " + k + ": became the stock";
    let who = "side " + p.team;
    if (p.seat !== null && p.seat !== undefined) who = "seat " + p.seat;
    return "pozzetto " + k + ": taken by " + who + (p.turn ? " in turn " + p.turn : "") +
      " (" + p.mode + ")";
  }

  function renderMeld(m, changed, marked) {
    const row = el("div", "meld" + (changed ? " changed" : ""));
    row.dataset.cards = m.cards.map((c) => D.faces[String(c)]).join(" ");
    const cards = el("div", "cards");
    for (const c of m.cards) {
      const cls = [];
      if (m.wild.indexOf(c) >= 0) cls.push("wild");
      if (m.natural_two === c) cls.push("nat2");
      if (changed && marked.indexOf(c) >= 0) cls.push("hl");
      cards.append(card(c, cls));
    }
    row.append(cards);
    row.append(el("span", "tag " + (m.clean ? "clean" : "dirty"),
      (m.clean ? "clean " : "dirty ") + m.kind));
    if (m.burraco) {
      row.dataset.burraco = m.burraco;
      row.append(el("span", "tag burraco", m.burraco + " burraco +" + m.bonus));
    }
    row.append(el("span", "pts", m.points + " pts"));
    return row;
  }

  function show(i) {
    i = Math.max(0, Math.min(N - 1, i));
    cur = i;
    const s = S[i];
    const marked = s.marked.ids;
    $("slider").value = String(i);
    $("stepno").textContent = "step " + i + " / " + (N - 1);
    $("stepno").dataset.step = String(i);
    $("prev").disabled = i === 0;
    $("next").disabled = i === N - 1;
    $("event").textContent = s.text;
    for (let k = 0; k < M.players; k++) {
      const box = $("seat-" + k);
      box.classList.toggle("active", s.seat === k);
      const n = s.hand_counts[k];
      const pts = s.hand_points[k];
      const mates = [];
      for (let j = 0; j < M.players; j++) if (j !== k && s.side_of[j] === s.side_of[k]) mates.push(j);
      const team = M.players === 4 ? "team " + s.side_of[k] + ", " :
        mates.length ? "partner of seat " + mates[0] + ", " : "";
      $("seat-head-" + k).textContent = M.seats[k].label + " (" + team +
        (M.seats[k].strategy || "-") + "): " + n + " card" + (n === 1 ? "" : "s") +
        (pts !== null ? ", " + pts + " points in hand" : ", face down");
      const hand = $("hand-" + k);
      hand.dataset.count = String(n);
      hand.replaceChildren();
      if (s.hands[k] === null) {
        for (let j = 0; j < n; j++) hand.append(back());
      } else {
        for (const c of s.hands[k]) hand.append(card(c, s.seat === k && marked.indexOf(c) >= 0 ? ["hl"] : []));
      }
    }
    $("stock").textContent = String(s.stock);
    const pile = $("pile");
    pile.replaceChildren();
    s.pile.forEach((c, j) => pile.append(card(c, j === s.pile.length - 1 ? ["top"] : [])));
    if (!s.pile.length) pile.append(el("span", null, "empty"));
    const pz = $("pozzetti");
    pz.replaceChildren();
    s.pozzetti.forEach((p, k) => {
      const li = el("li", null, pozText(p, k));
      li.dataset.state = p.state;
      pz.append(li);
    });
    for (let t = 0; t < M.sides; t++) {
      const tp = s.table_points[t];
      $("side-" + t).hidden = s.side_of.indexOf(t) < 0;      // a table merged away (R62)
      $("side-label-" + t).textContent = s.side_labels[t];
      const sc = $("score-" + t);
      sc.textContent = "on the table " + tp.total + " (melds " + tp.melds + " + burracos " +
        tp.bonus + "), " + tp.count + " meld" + (tp.count === 1 ? "" : "s");
      sc.dataset.total = String(tp.total);
      const box = $("melds-" + t);
      box.replaceChildren();
      s.melds[t].forEach((m, j) => {
        const ch = s.marked.meld !== null && s.marked.meld[0] === t && s.marked.meld[1] === j;
        box.append(renderMeld(m, ch, marked));
      });
      if (!s.melds[t].length) box.append(el("span", null, "no melds"));
    }
    const fin = $("final");
    if (D.final && i === N - 1) {
      fin.hidden = false;
      $("final-reason").textContent = "Ended: " + D.final.end_reason + " after " +
        D.final.turns + " turns.";
      const tab = $("final-table");
      tab.replaceChildren();
      const cols = D.final.columns;
      const head = el("tr");
      head.append(el("th", null, ""));
      cols.forEach((c) => head.append(el("th", null, c.label)));
      tab.append(head);
      const rows = [["melds (card points)", "meld_points", 1], ["burraco bonus", "burraco_bonus", 1],
        ["closing bonus", "closing_bonus", 1], ["cards left in hand", "hand_points", -1],
        ["pozzetto not taken", "pozzetto_penalty", -1], ["score", "score", 1]];
      for (const [name, key, sign] of rows) {
        const tr = el("tr");
        tr.append(el(key === "score" ? "th" : "td", null, name));
        cols.forEach((c, t) => {
          const td = el(key === "score" ? "th" : "td", null,
            (sign < 0 && c[key] ? "\u2212" : "") + c[key]);
          td.id = "final-" + key + "-" + t;
          td.dataset.value = String(c[key]);
          tr.append(td);
        });
        tab.append(tr);
      }
      const tr = el("tr");
      tr.append(el("td", null, "burracos: clean / dirty (semi-clean)"));
      cols.forEach((c) => tr.append(el("td", null, c.clean_burracos + " / " + c.dirty_burracos +
        " (" + c.semi_clean_burracos + ")")));
      tab.append(tr);
    } else {
      fin.hidden = true;
    }
    const rows = D.analyses[String(i)];
    const verdicts = (D.review && D.review.verdicts[String(i)]) || [];
    const aside = $("analysis");
    const verdict = $("verdict");
    verdict.replaceChildren();
    verdicts.forEach((line) => {
      const mark = D.review.marks.find((m) => m.step === i && m.text === line);
      verdict.append(el("p", mark ? mark.mark : null, line));
    });
    const tab = $("analysis-table");
    tab.replaceChildren();
    if ((rows && rows.length) || verdicts.length) {
      aside.hidden = false;
    }
    if (rows && rows.length) {
      const keys = [];
      rows.forEach((r) => Object.keys(r).forEach((k) => { if (keys.indexOf(k) < 0) keys.push(k); }));
      const head = el("tr");
      keys.forEach((k) => head.append(el("th", null, k)));
      tab.append(head);
      rows.forEach((r) => {
        const tr = el("tr");
        keys.forEach((k) => {
          const v = r[k];
          tr.append(el("td", null, v === null || v === undefined ? "" :
            (typeof v === "number" && !Number.isInteger(v) ? v.toFixed(2) : v)));
        });
        tab.append(tr);
      });
    } else if (!verdicts.length) {
      aside.hidden = true;
    }
    const items = $("log").children;
    for (let j = 0; j < items.length; j++) items[j].classList.toggle("current", j === i);
  }

  build();
  show(0);
})();
