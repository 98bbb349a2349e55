// The league dashboard: reads the manager's api/state and redraws the page.
// Plain JavaScript with no dependencies; every value from the state is put
// into the page as text, never as HTML, because display names come from
// the agents that registered.
"use strict";

(function () {
  const STATE_URL = "api/state"; // relative: works wherever the manager is mounted
  const POLL_MS = 1000;          // while the league is registering or running
  const IDLE_POLL_MS = 5000;     // once it has completed
  const MAX_BACKOFF_MS = 10000;  // while the manager cannot be reached

  const $ = (id) => document.getElementById(id);

  // A big league's state carries one round of the schedule (matches_round);
  // chosenRound is the round the viewer picked, or 0 to follow the current one.
  let chosenRound = 0;

  // A round of the schedule is shown open when it is the current one, or
  // when the whole list is short; roundOpen keeps what the reader chose by
  // clicking a round's title, by round id, across redraws.
  const SHORT_SCHEDULE = 24;
  const roundOpen = new Map();

  // el builds an element with attributes and text or child nodes.
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null) continue;
      if (k === "class") node.className = v;
      else node.setAttribute(k, String(v));
    }
    for (const c of children) {
      if (c === undefined || c === null) continue;
      node.append(c instanceof Node ? c : String(c));
    }
    return node;
  }

  // viewLink is the address of a player's or a match's page (view.html).
  function viewLink(kind, id) {
    return "view.html#/" + kind + "/" + encodeURIComponent(id);
  }

  function playerNames(state) {
    const names = new Map();
    for (const p of state.players || []) names.set(p.player_id, p.display_name || "");
    for (const r of state.standings || []) {
      if (r.display_name && !names.get(r.player_id)) names.set(r.player_id, r.display_name);
    }
    return names;
  }

  function label(id, names) {
    const name = names.get(id);
    return name && name !== id ? id + " · " + name : id;
  }

  function renderHeader(state) {
    document.body.dataset.status = state.status || "";
    $("league-id").textContent = state.league_id ? "League " + state.league_id : "Even/Odd League";
    const badge = $("status");
    badge.textContent = (state.status || "unknown").toLowerCase();
    badge.dataset.status = state.status || "";
    $("round").textContent = state.total_rounds
      ? "round " + (state.current_round || 0) + " of " + state.total_rounds
      : "";
    $("game-type").textContent = state.game_type || "";
    $("updated").textContent = state.updated_at ? "updated " + state.updated_at : "";
    $("over").hidden = state.status !== "COMPLETED";
    renderProgress(state);
  }

  // duration writes a number of seconds for a person: "45 s", "12 min", "2 h 5 min".
  function duration(s) {
    s = Math.round(s);
    if (s < 60) return s + " s";
    const m = Math.round(s / 60);
    if (m < 60) return m + " min";
    return Math.floor(m / 60) + " h " + (m % 60) + " min";
  }

  // renderProgress shows, at the top at any size of league, the matches
  // done of the total, the rate and the time left.
  function renderProgress(state) {
    const t = state.totals || {};
    const line = $("progress-line");
    line.hidden = !t.scheduled;
    if (!t.scheduled) return;
    const bar = $("progress-bar");
    bar.max = t.scheduled;
    bar.value = t.finished || 0;
    const parts = [(t.finished || 0) + " of " + t.scheduled + " matches done"];
    if (t.running) parts.push(t.running + " running");
    if (t.per_second) parts.push(t.per_second.toFixed(t.per_second < 10 ? 1 : 0) + " matches/s");
    if (state.status !== "COMPLETED" && t.seconds_left) {
      parts.push(t.seconds_left < 0.5 ? "less than a second left" : "about " + duration(t.seconds_left) + " left");
    }
    $("progress").textContent = parts.join(" · ");
  }

  function renderChampion(state) {
    const box = $("champion");
    const c = state.champion;
    if (!c || !c.player_id) {
      box.hidden = true;
      delete box.dataset.playerId;
      delete document.body.dataset.champion;
      return;
    }
    box.hidden = false;
    box.dataset.playerId = c.player_id;
    document.body.dataset.champion = c.player_id;
    $("champion-name").textContent = c.display_name ? c.display_name + " (" + c.player_id + ")" : c.player_id;
    $("champion-points").textContent = c.points + " points";
  }

  // Before any match is played the manager may send no standings; the
  // table then lists the registered players with zeros.
  function standingsRows(state) {
    if (state.standings && state.standings.length) return state.standings;
    return (state.players || []).map((p, i) => ({
      rank: i + 1, player_id: p.player_id, display_name: p.display_name,
      played: 0, wins: 0, draws: 0, losses: 0, points: 0,
    }));
  }

  function renderStandings(state, names) {
    const rows = standingsRows(state);
    const champ = state.champion && state.champion.player_id;
    const body = $("standings").tBodies[0];
    body.replaceChildren(...rows.map((r) =>
      el("tr", { "data-player-id": r.player_id, class: r.player_id === champ ? "champion" : null },
        el("td", { class: "num" }, r.rank),
        el("td", { class: "who" }, el("a", { href: viewLink("player", r.player_id) }, label(r.player_id, names))),
        el("td", { class: "num" }, r.played), el("td", { class: "num" }, r.wins),
        el("td", { class: "num" }, r.draws), el("td", { class: "num" }, r.losses),
        el("td", { class: "num points" }, r.points))));
    $("standings-empty").hidden = rows.length > 0;
  }

  function describeResult(m) {
    const res = m.result;
    if (!res) return m.status === "RUNNING" ? "playing…" : "";
    const d = res.details || {};
    const parts = [];
    if (res.status === "DRAW" || (!res.winner && res.status !== "TECHNICAL_LOSS")) parts.push("draw");
    else if (res.winner) parts.push(res.winner + " wins" + (res.status === "TECHNICAL_LOSS" ? " (technical)" : ""));
    else parts.push("no winner");
    if (d.drawn_number) parts.push("number " + d.drawn_number);
    if (d.reason && res.status === "TECHNICAL_LOSS") parts.push(d.reason);
    return parts.join(" · ");
  }

  function choiceOf(m, id) {
    const c = m.result && m.result.details && m.result.details.choices;
    return c && c[id] ? c[id] : null;
  }

  function renderMatch(m, names) {
    const who = (id) => el("span", { class: "who", "data-player-id": id }, label(id, names),
      choiceOf(m, id) ? el("span", { class: "choice" }, " " + choiceOf(m, id)) : null);
    return el("li", { class: "match", "data-match-id": m.match_id, "data-status": m.status },
      el("span", { class: "id" }, el("a", { href: viewLink("match", m.match_id) }, m.match_id)),
      el("span", { class: "players" }, who(m.player_A_id), " vs ", who(m.player_B_id)),
      el("span", { class: "status", "data-status": m.status }, (m.status || "").toLowerCase()),
      el("span", { class: "referee" }, m.referee_id || ""),
      el("span", { class: "result" }, describeResult(m)));
  }

  // renderPaging shows, for a league whose state carries one round of the
  // schedule, which round it is, a choice of the others, and the totals.
  function renderPaging(state) {
    const paged = !!state.matches_round;
    $("schedule-paging").hidden = !paged;
    if (!paged) return;
    const sel = $("round-select");
    if (sel.options.length !== state.total_rounds) {
      sel.replaceChildren(...Array.from({ length: state.total_rounds }, (_, i) =>
        el("option", { value: i + 1 }, String(i + 1))));
    }
    sel.value = String(state.matches_round);
    $("round-of").textContent = "of " + state.total_rounds + (chosenRound ? "" : " (following the current round)");
    const t = state.totals || {};
    $("totals").textContent = (t.finished || 0) + " of " + (t.scheduled || 0) + " matches finished, " +
      (t.running || 0) + " running";
  }

  function renderSchedule(state, names) {
    const byRound = new Map();
    for (const m of state.matches || []) {
      if (!byRound.has(m.round_id)) byRound.set(m.round_id, []);
      byRound.get(m.round_id).push(m);
    }
    const rounds = [...byRound.keys()].sort((a, b) => a - b);
    const short = (state.matches || []).length <= SHORT_SCHEDULE;
    $("schedule").replaceChildren(...rounds.map((r) => {
      const ms = byRound.get(r);
      const finished = ms.filter((m) => m.status === "FINISHED").length;
      const done = finished === ms.length;
      const current = r === state.current_round && !done;
      const open = roundOpen.has(r) ? roundOpen.get(r) : (short || current || !!state.matches_round);
      return el("details", {
        class: "round" + (current ? " current" : ""), "data-round-id": r, open: open ? "" : null,
        "data-status": done ? "COMPLETED" : (current ? "RUNNING" : "PENDING"),
      },
      el("summary", {}, "Round " + r, done ? " ✓" : "",
        " · " + finished + " of " + ms.length + " matches finished"),
      el("ul", {}, ...ms.map((m) => renderMatch(m, names))));
    }));
    $("schedule-empty").hidden = rounds.length > 0;
    const t = state.totals || {};
    $("schedule-count").textContent = t.scheduled ? "(" + t.scheduled + " matches)" : "";
  }

  // shownState is what an agent's badge says: its lifecycle state
  // (REGISTERED, ACTIVE, SUSPENDED, SHUTDOWN) as the manager keeps it;
  // once the league is over, when the league's end (not failures) shut the
  // agent down, SERVING: it still serves, as far as the manager knows.
  function shownState(state, a) {
    if (state.status === "COMPLETED" && a.serving) return "SERVING";
    return a.state || "";
  }

  function stateBadge(s) {
    const title = s === "SERVING" ? "the league is over; this agent still serves as far as the manager knows" : null;
    return el("td", {}, el("span", { class: "badge state", "data-state": s, title: title }, s || "?"));
  }

  function renderAgents(state) {
    const players = state.players || [];
    $("players").tBodies[0].replaceChildren(...players.map((p) =>
      el("tr", { "data-player-id": p.player_id, "data-state": shownState(state, p) },
        el("td", {}, p.player_id), el("td", {}, p.display_name || ""),
        stateBadge(shownState(state, p)),
        el("td", { class: "endpoint" }, p.endpoint || ""))));
    $("player-count").textContent = "(" + (state.page ? state.page.players : players.length) + ")";

    const refs = state.referees || [];
    $("referees").tBodies[0].replaceChildren(...refs.map((r) =>
      el("tr", { "data-referee-id": r.referee_id, "data-state": shownState(state, r) },
        el("td", {}, r.referee_id), el("td", {}, r.display_name || ""),
        stateBadge(shownState(state, r)),
        el("td", { class: "endpoint" }, r.endpoint || ""),
        el("td", { class: "num" }, (r.active_matches || 0) + " / " + (r.max_concurrent_matches || "?")))));
    $("referee-count").textContent = "(" + refs.length + ")";
  }

  function render(state) {
    $("loading").hidden = true;
    const names = playerNames(state);
    renderHeader(state);
    renderChampion(state);
    renderStandings(state, names);
    renderPaging(state);
    renderSchedule(state, names);
    renderAgents(state);
  }

  let failures = 0;

  // The page reads a page of each list (PAGE rows of the standings, the
  // players and the schedule, from their offsets), so that what it reads
  // every second stays small at any size of league; the state's ETag
  // lets an unchanged state come back as 304 with no body.
  const PAGE = 100;
  const MATCHES_PAGE = 300; // every match of a league whose state carries them all
  const offsets = { standings: 0, players: 0, matches: 0 };
  let etag = "";
  let lastState = null;

  function stateAddress() {
    const q = ["limit=" + PAGE, "matches_limit=" + MATCHES_PAGE, "standings_offset=" + offsets.standings, "players_offset=" + offsets.players,
      "matches_offset=" + offsets.matches];
    if (chosenRound) q.push("round=" + chosenRound);
    return STATE_URL + "?" + q.join("&");
  }

  // renderPager shows, under a list the state carries a page of, which
  // rows are shown and buttons for the pages before and after.
  function renderPager(state, list) {
    const box = $(list + "-pager");
    const p = state.page;
    const total = p ? p[list] : 0;
    const limit = p ? (list === "matches" ? p.matches_limit : p.limit) : 0;
    if (!p || total <= limit) { box.replaceChildren(); box.hidden = true; return; }
    box.hidden = false;
    const from = p[list + "_offset"];
    const go = (offset) => { offsets[list] = Math.max(0, offset); etag = ""; clearTimeout(timer); tick(); };
    const prev = el("button", { type: "button", disabled: from === 0 ? "" : null }, "‹ previous");
    const next = el("button", { type: "button", disabled: from + limit >= total ? "" : null }, "next ›");
    prev.onclick = () => go(from - limit);
    next.onclick = () => go(from + limit);
    box.replaceChildren(prev, el("span", {}, " rows " + (from + 1) + "–" + Math.min(from + limit, total) + " of " + total + " "), next);
  }

  let timer = null;

  async function tick() {
    let next = POLL_MS;
    try {
      const headers = { Accept: "application/json" };
      if (etag && lastState) headers["If-None-Match"] = etag;
      const resp = await fetch(stateAddress(), { cache: "no-store", headers });
      let state;
      if (resp.status === 304 && lastState) {
        state = lastState;
      } else {
        if (!resp.ok) throw new Error("HTTP " + resp.status);
        state = await resp.json();
        etag = resp.headers.get("ETag") || "";
        lastState = state;
      }
      render(state);
      for (const list of ["standings", "players", "matches"]) renderPager(state, list);
      failures = 0;
      $("connection").hidden = true;
      if (state.status === "COMPLETED") next = IDLE_POLL_MS;
    } catch (err) {
      failures++;
      next = Math.min(POLL_MS * 2 ** failures, MAX_BACKOFF_MS);
      const c = $("connection");
      c.hidden = false;
      c.textContent = "Cannot reach the manager (" + err.message + "); trying again in " + Math.round(next / 1000) + " s.";
    }
    timer = setTimeout(tick, next);
  }

  // A click on a round's title opens or closes it; the redraws keep that.
  $("schedule").addEventListener("click", (e) => {
    const summary = e.target.closest("summary");
    if (!summary) return;
    const round = summary.parentElement;
    roundOpen.set(Number(round.dataset.roundId), !round.open);
  });

  $("round-select").addEventListener("change", (e) => {
    chosenRound = Number(e.target.value) || 0;
    offsets.matches = 0;
  });

  tick();
})();
