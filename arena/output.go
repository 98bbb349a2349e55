package arena

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteTable writes the report as tables for a terminal: the standings
// ranked by rating, with each entry's realised and expected points per
// match and their 95 % intervals, its differ rate, the gain over random
// play (even/odd), the rating and the fallbacks (a flagged entry marked
// "!"); then the head-to-head table, in expected points when the rules
// give them; then a legend.
func (r *Report) WriteTable(w io.Writer) error {
	mode := "in process"
	remote := 0
	for _, s := range r.Standings {
		if s.URL != "" {
			remote++
		}
	}
	switch {
	case r.League:
		mode = "whole leagues over an in-memory network"
	case remote > 0:
		mode = fmt.Sprintf("in process, %d over HTTP", remote)
	}
	rate := 0.0
	if r.Elapsed > 0 {
		rate = float64(r.Matches) / r.Elapsed.Seconds()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s · %s · %s · %s · seed %d · %s", r.GameType, count(len(r.Standings), "entry", "entries"),
		count(r.Rounds, "round", "rounds"), count(r.Matches, "match", "matches"), r.Seed, mode)
	if r.Elapsed > 0 {
		fmt.Fprintf(&b, " · %s (%.0f matches/s)", r.Elapsed.Round(time.Millisecond), rate)
	}
	b.WriteString("\n")
	if r.Pool != nil {
		fmt.Fprintf(&b, "pool %s · sha256 %s\n", r.Pool.Name, r.Pool.SHA256)
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	gain := len(r.Standings) > 0 && r.Standings[0].Gain != nil
	expected, differ, latency, tokens := false, false, false, false
	for _, s := range r.Standings {
		expected = expected || s.ExpectedPerMatch != nil
		differ = differ || s.DifferRate != nil
		latency = latency || s.Latency != nil
		tokens = tokens || s.Tokens != nil
	}
	head := "rank\tentry\tplayed\twon\tdrawn\tlost\tpoints\trealised/match\t95% interval\t"
	if expected {
		head += "expected/match\t95% interval\t"
	}
	if differ {
		head += "differ\t"
	}
	if gain {
		head += "vs random\t"
	}
	head += "rating\tfallbacks\t"
	if latency {
		head += "answer p50/p99/max\t"
	}
	if tokens {
		head += "tokens in/out\t"
	}
	fmt.Fprintln(tw, head)
	for k, s := range r.Standings {
		lost := strconv.Itoa(s.Losses)
		if s.TechnicalLosses > 0 {
			lost += fmt.Sprintf(" (%d tech.)", s.TechnicalLosses)
		}
		line := fmt.Sprintf("%d\t%s\t%d\t%d\t%d\t%s\t%d\t%.3f\t%s\t", k+1, s.Name, s.Played, s.Wins, s.Draws, lost, s.Points,
			s.PointsPerMatch.Mean, interval(s.PointsPerMatch))
		if expected {
			if e := s.ExpectedPerMatch; e != nil {
				line += fmt.Sprintf("%.3f\t%s\t", e.Mean, interval(*e))
			} else {
				line += "—\t—\t"
			}
		}
		if differ {
			if d := s.DifferRate; d != nil {
				line += fmt.Sprintf("%.1f %% ± %.1f\t", 100*d.Mean, 100*(d.High-d.Low)/2)
			} else {
				line += "—\t"
			}
		}
		if gain {
			line += fmt.Sprintf("%+.3f ± %.3f\t", s.Gain.Mean, (s.Gain.High-s.Gain.Low)/2)
		}
		line += fmt.Sprintf("%.0f\t%s\t", s.Rating, fallbacks(s))
		if latency {
			if l := s.Latency; l != nil {
				line += fmt.Sprintf("%s/%s/%s ms of %s\t", ms(l.P50), ms(l.P99), ms(l.Max), l.Deadline)
			} else {
				line += "—\t"
			}
		}
		if tokens {
			if k := s.Tokens; k != nil {
				line += fmt.Sprintf("%d/%d\t", k.Prompt, k.Answer)
			} else {
				line += "—\t"
			}
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if expected {
		b.WriteString("\nHead to head: expected points per match of the row against the column\n\n")
	} else {
		b.WriteString("\nHead to head: points per match of the row against the column\n\n")
	}
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	cols := "\t"
	for _, s := range r.Standings {
		cols += s.Name + "\t"
	}
	fmt.Fprintln(tw, cols)
	for _, s := range r.Standings {
		line := s.Name + "\t"
		for _, c := range r.Standings {
			if c.Name == s.Name {
				line += "—\t"
				continue
			}
			h, _ := r.HeadToHead(s.Name, c.Name)
			line += fmt.Sprintf("%.2f\t", h.points())
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b.WriteString("\nIntervals are 95 % confidence intervals of the mean. Realised points are those the drawn numbers gave (3 a win, 1 a draw, 0 a loss).\n")
	if expected {
		b.WriteString("Expected points are what the choices of a match were worth on average over every number the referee could have drawn: " +
			"the same information without the referee's chance, so their interval is narrower; compare strategies on them.\n")
	}
	if differ {
		b.WriteString("Differ: the share of matches in which the entry's choice differed from its opponent's.\n")
	}
	if gain {
		fmt.Fprintf(&b, "In even/odd both players of a match expect the same points, 1 each when they choose alike (a draw), 1.5 each when they differ: "+
			"a strategy controls only how often it differs, and a head-to-head between two entries cannot tell them apart.\n"+
			"Random play earns %.2f points per match against anyone: a strategy is better than chance when its interval lies above it (vs random).\n", RandomPlay)
	}
	if r.RatingMethod == RatingMethodExpected {
		b.WriteString("Ranked by rating: the expected points per match, as a share of the 3 a win earns, on the Elo scale, mean 1500 (every entry meets every other equally often).\n")
	} else {
		b.WriteString("Ranked by rating: the points per match, as a share of the 3 a win earns, on the Elo scale, mean 1500 (every entry meets every other equally often).\n")
	}
	fmt.Fprintf(&b, "Fallbacks: the moves the player answered with its fallback because the strategy failed or was late; "+
		"! marks more than %.0f %% of the moves, where the results are mostly the fallback's.\n", 100*FallbackLimit)
	if latency {
		b.WriteString("Answer: how long the player took from a move call to its answer (median, 99th percentile, longest) against the call's deadline.\n")
	}
	if tokens {
		b.WriteString("Tokens: those of the model's prompts and answers, as its SDK reported them.\n")
	}
	for _, s := range r.Standings {
		if s.Flagged {
			fmt.Fprintf(&b, "! %s, latest fallback: %s\n", s.Name, s.FallbackCause)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// points is the head-to-head's points per match: expected when known,
// else realised.
func (h HeadToHead) points() float64 {
	if h.ExpectedPerMatch != nil {
		return h.ExpectedPerMatch.Mean
	}
	return h.PointsPerMatch.Mean
}

// ms formats a latency in milliseconds, to three significant digits.
func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'g', 3, 64)
}

// Stable leaves out of the report what changes from one run to the next
// however reproducible the run (how long it took, the players' answer
// times), so that two runs with the same seed print the same bytes.
func (r *Report) Stable() {
	r.Elapsed = 0
	for i := range r.Standings {
		r.Standings[i].Latency = nil
	}
}

// count writes n with the noun's singular (one) or plural (many) form.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func interval(e Estimate) string { return fmt.Sprintf("[%.3f, %.3f]", e.Low, e.High) }

// fallbacks is the table's cell of an entry's fallbacks: their number and
// share, marked when flagged; a dash for an entry the arena cannot see into.
func fallbacks(s Standing) string {
	switch {
	case s.Moves == 0:
		return "—"
	case s.Fallbacks == 0:
		return "0"
	}
	cell := fmt.Sprintf("%d (%.0f %%)", s.Fallbacks, 100*s.FallbackShare())
	if s.Flagged {
		cell += " !"
	}
	return cell
}

// WriteJSON writes the report as indented JSON, its numbers rounded to
// [JSONDecimals] decimals.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteCSV writes the standings as CSV, one line per entry: its record,
// its realised and expected points per match and differ rate with their
// intervals (empty where the report has none), its gain over random play
// with its interval (even/odd; empty in other games), its rating and
// fallbacks, and a column of points per match against each entry:
// expected when the rules give them, else realised.
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"rank", "entry", "played", "wins", "draws", "losses", "technical_losses", "points",
		"points_per_match", "ci_low", "ci_high", "expected_points_per_match", "expected_ci_low", "expected_ci_high",
		"differ_rate", "differ_ci_low", "differ_ci_high", "gain", "gain_low", "gain_high", "rating", "moves", "fallbacks", "flagged", "fallback_cause"}
	for _, s := range r.Standings {
		head = append(head, "vs "+s.Name)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
	est := func(e *Estimate) []string {
		if e == nil {
			return []string{"", "", ""}
		}
		return []string{f(e.Mean), f(e.Low), f(e.High)}
	}
	for k, s := range r.Standings {
		gain := []string{"", "", ""}
		if s.Gain != nil {
			gain = []string{f(s.Gain.Mean), f(s.Gain.Low), f(s.Gain.High)}
		}
		line := []string{strconv.Itoa(k + 1), s.Name, strconv.Itoa(s.Played), strconv.Itoa(s.Wins), strconv.Itoa(s.Draws),
			strconv.Itoa(s.Losses), strconv.Itoa(s.TechnicalLosses), strconv.Itoa(s.Points)}
		line = append(line, est(&s.PointsPerMatch)...)
		line = append(line, est(s.ExpectedPerMatch)...)
		line = append(line, est(s.DifferRate)...)
		line = append(line, gain...)
		line = append(line, f(s.Rating), strconv.FormatInt(s.Moves, 10), strconv.FormatInt(s.Fallbacks, 10),
			strconv.FormatBool(s.Flagged), s.FallbackCause)
		for _, c := range r.Standings {
			if h, ok := r.HeadToHead(s.Name, c.Name); ok {
				line = append(line, f(h.points()))
			} else {
				line = append(line, "")
			}
		}
		if err := cw.Write(line); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
