// The viewer: what happened in a league — its course, a player, a match.
// It reads api/view/… next to the page (served by the manager for its
// league, or by a viewer of a data root), or, in a league's offline file,
// the same answers from the page itself. Every value is put into the page
// as text, never as HTML: names come from the agents that registered.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const PAGE_ROWS = 50;      // rows of a table shown at a time
  const LIVE_POLL_MS = 5000; // how often a live league's page looks again
  const COLORS = ["#3b5bdb", "#e67700", "#2b8a3e", "#c2255c", "#7048e8", "#0c8599", "#5c940d", "#d9480f",
    "#1098ad", "#ae3ec9"];

  const dataNode = document.getElementById("league-data");
  const offline = dataNode ? JSON.parse(dataNode.textContent) : null;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") node.className = v;
      else node.setAttribute(k, String(v));
    }
    for (const c of children) {
      if (c === undefined || c === null) continue;
      node.append(c instanceof Node ? c : String(c));
    }
    return node;
  }

  // get reads one answer of api/view/: from the server, or from the file.
  async function get(path) {
    if (offline) return offlineGet(path);
    const resp = await fetch("api/view/" + path, { cache: "no-store", headers: { Accept: "application/json" } });
    if (!resp.ok) throw new Error(path + ": HTTP " + resp.status);
    return resp.json();
  }

  function offlineGet(path) {
    const [p, q] = path.split("?");
    const params = new URLSearchParams(q || "");
    if (p === "standings") {
      let k = params.has("round") ? Number(params.get("round")) : offline.league.rounds_played;
      while (k > 0 && !offline["standings/" + k]) k--; // the file may hold every few rounds only
      return offline["standings/" + k];
    }
    if (p === "course") {
      const all = offline.course;
      const top = Number(params.get("top") || 0);
      const picked = (params.get("players") || "").split(",").filter(Boolean);
      const series = all.series.filter((s, i) => i < top || picked.includes(s.player_id));
      return { rounds: all.rounds, median: all.median, series };
    }
    const v = offline[p];
    if (v === undefined) throw new Error("this file does not hold " + p);
    return v;
  }

  const href = {
    league: () => "#/",
    player: (id) => "#/player/" + encodeURIComponent(id),
    match: (id) => "#/match/" + encodeURIComponent(id),
  };

  let league = null; // api/view/league
  const names = new Map();

  function who(id) {
    const n = names.get(id);
    return el("a", { href: href.player(id), "data-player-id": id }, n && n !== id ? id + " · " + n : id);
  }

  function showError(err) {
    const e = $("view-error");
    e.hidden = !err;
    e.textContent = err ? "Cannot read the league: " + err.message : "";
  }

  function renderHeader() {
    const meta = $("view-meta");
    meta.replaceChildren(
      el("span", { class: "badge", "data-status": league.status }, (league.status || "").toLowerCase()),
      el("span", {}, "rounds played " + league.rounds_played + " of " + league.total_rounds),
      el("span", {}, league.finished + " of " + league.matches + " matches"),
      el("span", {}, league.players.length + " players"),
      el("span", {}, league.game_type || ""));
    const c = league.champion;
    $("view-champion").hidden = !c;
    if (c) {
      $("view-champion").dataset.playerId = c.player_id;
      $("view-champion-name").replaceChildren(who(c.player_id));
      $("view-champion-points").textContent = c.points + " points";
    }
    $("nav-live").hidden = !league.live;
    $("view-footer").textContent = offline
      ? "A file of league " + league.league_id + ", written " + (offline.written_at || "") + "; it reads nothing from the network."
      : "The page reads api/view/ beside it" + (league.live && league.status !== "COMPLETED" ? ", and again every " + LIVE_POLL_MS / 1000 + " s while the league runs." : ".");
    const list = $("player-ids");
    if (list.options.length !== league.players.length) {
      list.replaceChildren(...league.players.map((p) => el("option", { value: p.player_id }, p.display_name || "")));
    }
  }

  // pager shows rows [page*PAGE_ROWS, …) of rows in body, with prev/next.
  function paged(body, pager, rows, page, draw, setPage) {
    const pages = Math.max(1, Math.ceil(rows.length / PAGE_ROWS));
    page = Math.min(Math.max(page, 0), pages - 1);
    const from = page * PAGE_ROWS;
    body.replaceChildren(...rows.slice(from, from + PAGE_ROWS).map(draw));
    if (pages === 1) { pager.replaceChildren(); return page; }
    const prev = el("button", { type: "button", disabled: page === 0 }, "‹ previous");
    const next = el("button", { type: "button", disabled: page === pages - 1 }, "next ›");
    prev.onclick = () => setPage(page - 1);
    next.onclick = () => setPage(page + 1);
    pager.replaceChildren(prev, el("span", {}, "rows " + (from + 1) + "–" + Math.min(from + PAGE_ROWS, rows.length) +
      " of " + rows.length), next);
    return page;
  }

  // chart draws series over rounds with uPlot into box, replacing what was there.
  function chart(box, rounds, series) {
    box.replaceChildren();
    const width = Math.max(320, box.clientWidth || box.parentElement.clientWidth - 32);
    const opts = {
      width, height: 300,
      scales: { x: { time: false } },
      axes: [{ label: "round", incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500] }, { label: "points" }],
      legend: { live: true },
      series: [{ label: "round" }, ...series.map((s, i) => ({
        label: s.label, stroke: s.color || COLORS[i % COLORS.length], width: s.width || 2, dash: s.dash, points: { show: rounds.length <= 60 },
      }))],
    };
    const u = new uPlot(opts, [rounds, ...series.map((s) => s.values)], box);
    box.uplot = u; // for whoever inspects the page: its rounds and values
    box.dataset.rounds = String(rounds.length);
    box.dataset.series = String(series.length);
    return u;
  }

  // ---- the league ----
  const leagueState = { k: null, standings: [], standingsPage: 0, roundPage: 0, round: 1, picked: [], top: 5, course: null };

  async function showLeague() {
    $("nav-here").textContent = "";
    $("view-title").textContent = "League " + league.league_id;
    const slider = $("round-slider");
    const follow = leagueState.k === null || leagueState.k === Number(slider.max);
    slider.max = String(league.rounds_played);
    if (follow) leagueState.k = league.rounds_played;
    slider.value = String(leagueState.k);
    const sel = $("view-round-select");
    if (sel.options.length !== league.total_rounds) {
      sel.replaceChildren(...Array.from({ length: league.total_rounds }, (_, i) => el("option", { value: i + 1 }, String(i + 1))));
      leagueState.round = Math.max(1, Math.min(league.rounds_played, league.total_rounds));
    }
    sel.value = String(leagueState.round);
    await Promise.all([loadStandings(), loadCourse(), loadRound()]);
  }

  async function loadStandings() {
    const k = leagueState.k;
    const s = await get("standings?round=" + k);
    if (k !== leagueState.k) return; // the slider moved meanwhile
    leagueState.standings = s.standings || [];
    $("slider-round").textContent = String(s.round);
    $("slider-of").textContent = "(of " + s.rounds_played + " played)";
    $("view-standings").dataset.round = String(s.round);
    drawStandings();
  }

  function drawStandings() {
    const champ = league.champion && leagueState.k === league.rounds_played ? league.champion.player_id : null;
    leagueState.standingsPage = paged($("view-standings").tBodies[0], $("standings-pager"), leagueState.standings,
      leagueState.standingsPage, (r) => el("tr", { "data-player-id": r.player_id, class: r.player_id === champ ? "champion" : null },
        el("td", { class: "num" }, r.rank), el("td", {}, who(r.player_id)),
        el("td", { class: "num" }, r.played), el("td", { class: "num" }, r.wins),
        el("td", { class: "num" }, r.draws), el("td", { class: "num" }, r.losses),
        el("td", { class: "num points" }, r.points)),
      (p) => { leagueState.standingsPage = p; drawStandings(); });
  }

  async function loadCourse() {
    const c = await get("course?top=" + leagueState.top + "&players=" + leagueState.picked.map(encodeURIComponent).join(","));
    leagueState.course = c;
    const series = c.series.map((s) => ({ label: (s.rank ? "#" + s.rank + " " : "") + s.player_id, values: s.points }));
    series.push({ label: "median of the field", values: c.median, color: "#868e96", dash: [6, 4], width: 1.5 });
    chart($("course-chart"), c.rounds, series);
    $("course-note").textContent = "(" + c.rounds.length + " rounds played)";
    $("course-picked").replaceChildren(...leagueState.picked.map((id) => {
      const b = el("button", { type: "button", title: "remove" }, id + " ✕");
      b.onclick = () => { leagueState.picked = leagueState.picked.filter((x) => x !== id); loadCourse().catch(showError); };
      return b;
    }));
  }

  async function loadRound() {
    const k = leagueState.round;
    if (!league.total_rounds) return;
    const r = await get("round/" + k);
    if (k !== leagueState.round) return;
    leagueState.roundRows = r.matches;
    const done = r.matches.filter((m) => m.status === "FINISHED").length;
    $("view-round-note").textContent = "of " + league.total_rounds + " · " + done + " of " + r.matches.length + " finished";
    drawRound();
  }

  function resultText(m) {
    if (m.status !== "FINISHED") return (m.status || "").toLowerCase();
    if (m.result === "DRAW") return "draw";
    if (m.result === "TECHNICAL_LOSS") return m.winner ? m.winner + " wins (technical)" : "both lose (technical)";
    return m.winner + " wins";
  }

  function drawRound() {
    const side = (id, c) => el("td", {}, who(id), c ? el("span", { class: "choice" }, " " + c) : null);
    leagueState.roundPage = paged($("view-round").tBodies[0], $("round-pager"), leagueState.roundRows || [], leagueState.roundPage,
      (m) => el("tr", { "data-match-id": m.match_id, "data-status": m.status },
        el("td", {}, el("a", { href: href.match(m.match_id) }, m.match_id)),
        side(m.player_A_id, m.choice_A), side(m.player_B_id, m.choice_B),
        el("td", { class: "num" }, m.drawn_number || ""), el("td", {}, resultText(m))),
      (p) => { leagueState.roundPage = p; drawRound(); });
  }

  $("round-slider").addEventListener("input", (e) => {
    leagueState.k = Number(e.target.value);
    $("slider-round").textContent = String(leagueState.k);
    loadStandings().catch(showError);
  });
  $("slider-latest").onclick = () => {
    leagueState.k = league.rounds_played;
    $("round-slider").value = String(leagueState.k);
    loadStandings().catch(showError);
  };
  $("view-round-select").addEventListener("change", (e) => {
    leagueState.round = Number(e.target.value);
    leagueState.roundPage = 0;
    loadRound().catch(showError);
  });
  $("course-top").addEventListener("change", (e) => { leagueState.top = Number(e.target.value); loadCourse().catch(showError); });
  function pick() {
    const id = $("course-pick").value.trim();
    if (!id || leagueState.picked.includes(id) || !names.has(id)) return;
    leagueState.picked.push(id);
    $("course-pick").value = "";
    loadCourse().catch(showError);
  }
  $("course-add").onclick = pick;
  $("course-pick").addEventListener("keydown", (e) => { if (e.key === "Enter") pick(); });

  // ---- a player ----
  const playerState = { rows: [], page: 0 };

  const outcomeOf = (m, id) => {
    if (m.status !== "FINISHED") return "";
    if (m.result === "DRAW") return "DRAW";
    if (m.winner === id) return "WIN";
    return m.result === "TECHNICAL_LOSS" ? "TECHNICAL_LOSS" : "LOSS";
  };

  async function showPlayer(id) {
    const p = await get("player/" + encodeURIComponent(id));
    $("nav-here").textContent = "› player " + id;
    $("view-title").textContent = (p.display_name ? p.display_name + " (" + id + ")" : id);
    document.body.dataset.playerId = id;
    const s = p.standing || {};
    const lat = p.latency || {};
    const stat = (k, v, key) => [el("dt", {}, k), el("dd", { "data-stat": key }, v)];
    $("player-stats").replaceChildren(
      ...stat("Rank", s.rank ? s.rank + " of " + league.players.length : "–", "rank"),
      ...stat("Points", s.points ?? 0, "points"),
      ...stat("Won / drawn / lost", (s.wins || 0) + " / " + (s.draws || 0) + " / " + (s.losses || 0), "wdl"),
      ...stat("Differed from the opponent", p.compared ? (100 * p.differ_rate).toFixed(1) + " % (" + p.differed + " of " + p.compared + ")" : "–", "differ"),
      ...stat("Answer latency p50 / p99", lat.answers ? lat.p50_ms.toFixed(1) + " ms / " + lat.p99_ms.toFixed(1) + " ms (" + lat.answers + " answers)" : "no transcript here", "latency"));
    $("player-technical").replaceChildren(...(p.technical_losses.length ? p.technical_losses.map((t) =>
      el("li", {}, el("a", { href: href.match(t.match_id) }, t.match_id), " (round " + t.round_id + "): " + t.cause))
      : [el("li", { class: "empty" }, "none")]));
    const c = p.course;
    const mine = c.series.find((x) => x.player_id === id);
    const leader = c.series.find((x) => x.player_id !== id);
    const series = [{ label: id, values: mine ? mine.points : [], width: 3 }];
    if (leader) series.push({ label: "leader " + leader.player_id, values: leader.points, color: "#e67700" });
    else if (mine) series.push({ label: "leader (this player)", values: mine.points, color: "#e67700", dash: [2, 3] });
    series.push({ label: "median of the field", values: c.median, color: "#868e96", dash: [6, 4], width: 1.5 });
    chart($("player-chart"), c.rounds, series);
    $("player-chart").dataset.points = String(mine ? mine.points.length : 0);
    if (playerState.id !== id) playerState.page = 0; // a live league's page, read again, stays where it was
    playerState.id = id;
    playerState.rows = p.matches;
    $("player-match-count").textContent = "(" + p.matches.filter((m) => m.status === "FINISHED").length + " of " + p.matches.length + " played)";
    drawPlayerMatches();
  }

  function drawPlayerMatches() {
    const id = playerState.id;
    playerState.page = paged($("player-matches").tBodies[0], $("player-pager"), playerState.rows, playerState.page, (m) => {
      const a = m.player_A_id === id;
      const o = outcomeOf(m, id);
      return el("tr", { "data-match-id": m.match_id },
        el("td", { class: "num" }, m.round_id), el("td", {}, el("a", { href: href.match(m.match_id) }, m.match_id)),
        el("td", {}, who(a ? m.player_B_id : m.player_A_id)),
        el("td", { class: "choice" }, (a ? m.choice_A : m.choice_B) || ""), el("td", {}, (a ? m.choice_B : m.choice_A) || ""),
        el("td", { class: "num" }, m.drawn_number || ""),
        el("td", { class: "result-" + o }, o ? o.toLowerCase().replace("_", " ") : (m.status || "").toLowerCase()),
        el("td", { class: "num points" }, m.status === "FINISHED" ? (a ? m.points_A : m.points_B) : ""));
    }, (pg) => { playerState.page = pg; drawPlayerMatches(); });
  }

  // ---- a match ----
  async function showMatch(id) {
    const m = await get("match/" + encodeURIComponent(id));
    $("nav-here").textContent = "› round " + m.round_id + " › match " + id;
    $("view-title").textContent = "Match " + id + " · round " + m.round_id + (m.referee_id ? " · referee " + m.referee_id : "");
    for (const [side, pid, choice, pts] of [["A", m.player_A_id, m.choice_A, m.points_A], ["B", m.player_B_id, m.choice_B, m.points_B]]) {
      $("match-player-" + side).replaceChildren(...[who(pid), m.winner === pid ? el("span", { class: "winner" }, " winner") : null].filter(Boolean));
      $("match-choice-" + side).textContent = choice || (m.status === "FINISHED" ? "no choice" : "–");
      $("match-points-" + side).textContent = m.status === "FINISHED" ? String(pts) : "";
    }
    $("match-number").textContent = m.drawn_number ? String(m.drawn_number) : "–";
    $("match-parity").textContent = m.number_parity ? "(" + m.number_parity + ")" : "";
    $("match-outcome").textContent = resultText(m) + (m.reason ? " — " + m.reason : "");
    $("match-rule").textContent = m.rule || "–";
    $("match-cause-line").hidden = !m.cause;
    $("match-cause").textContent = m.cause || "";
    $("match-source").textContent = "From " + m.source + (m.recorded_at ? "; recorded " + m.recorded_at : "") + ".";
    const t = m.transcript;
    $("match-no-transcript").hidden = !!t;
    $("match-lifecycle").replaceChildren(...(t ? t.lifecycle.map((l) =>
      el("li", {}, l.state.toLowerCase().replaceAll("_", " "), " at " + l.at, l.note ? " — " + l.note : "")) : []));
    const msgs = t ? t.messages : [];
    $("match-message-count").textContent = t ? "(" + msgs.length + ")" : "";
    $("match-messages").tBodies[0].replaceChildren(...msgs.map((x, i) => {
      const lat = x.latency_ms;
      const budget = x.budget_ms;
      const cell = el("td", { class: "num" + (x.late ? " late" : "") });
      if (lat !== undefined) {
        cell.append(lat.toFixed(1) + (budget !== undefined ? " / " + budget.toFixed(0) : ""));
        if (budget) cell.append(el("span", { class: "bar" + (x.late ? " late" : ""), style: null, "data-share": Math.min(1, lat / budget) }));
      } else if (budget !== undefined && x.direction === "sent") {
        cell.append("deadline in " + budget.toFixed(0));
      }
      const body = x.message ? el("details", {}, el("summary", {}, "body"),
        el("pre", { class: "body" }, JSON.stringify(x.message, null, 2))) : null;
      return el("tr", { class: x.error ? "error" : (x.late ? "late" : null), "data-direction": x.direction },
        el("td", { class: "num" }, i + 1), el("td", { class: "num", title: x.at }, x.offset_ms.toFixed(1)),
        el("td", { class: "dir" }, x.direction === "sent" ? "→" : "←"), el("td", {}, x.peer),
        el("td", {}, x.message_type || x.method, x.error ? " — " + x.error : ""), cell, el("td", {}, body));
    }));
    // Bars are sized through the CSS object model, which the page's
    // content security policy allows (style attributes it does not).
    for (const b of document.querySelectorAll("#match-messages .bar")) b.style.width = (4 * Number(b.dataset.share)).toFixed(2) + "rem";
  }

  // ---- routing ----
  let timer = null;

  async function route() {
    clearTimeout(timer);
    const hash = decodeURIComponent(location.hash.replace(/^#\/?/, ""));
    const [kind, ...rest] = hash.split("/");
    const id = rest.join("/");
    const view = kind === "player" || kind === "match" ? kind : "league";
    try {
      league = await get("league");
      names.clear();
      for (const p of league.players) names.set(p.player_id, p.display_name || "");
      renderHeader();
      for (const v of ["league", "player", "match"]) $(v + "-view").hidden = v !== view;
      if (view === "player") await showPlayer(id);
      else if (view === "match") await showMatch(id);
      else await showLeague();
      document.body.dataset.view = view;
      if (!window.viewDrawnAt) window.viewDrawnAt = performance.now(); // when the first screen was drawn
      showError(null);
    } catch (err) {
      showError(err);
    }
    if (!offline && league && league.live && league.status !== "COMPLETED" && view !== "match") {
      timer = setTimeout(route, LIVE_POLL_MS);
    }
  }

  window.addEventListener("hashchange", () => { leagueState.k = null; route(); });
  route();
})();
