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
// ranked by rating, with each entry's points per match and its 95 %
// interval, the gain over random play (even/odd), the rating and the
// fallbacks (a flagged entry marked "!"); then the head-to-head table.
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
	fmt.Fprintf(&b, "%s · %s · %s · %s · seed %d · %s · %s (%.0f matches/s)\n\n",
		r.GameType, count(len(r.Standings), "entry", "entries"), count(r.Rounds, "round", "rounds"), count(r.Matches, "match", "matches"),
		r.Seed, mode, r.Elapsed.Round(time.Millisecond), rate)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	gain := len(r.Standings) > 0 && r.Standings[0].Gain != nil
	head := "rank\tentry\tplayed\twon\tdrawn\tlost\tpoints\tpts/match\t95% interval\t"
	if gain {
		head += "vs random\t"
	}
	fmt.Fprintln(tw, head+"rating\tfallbacks\t")
	for k, s := range r.Standings {
		lost := strconv.Itoa(s.Losses)
		if s.TechnicalLosses > 0 {
			lost += fmt.Sprintf(" (%d tech.)", s.TechnicalLosses)
		}
		line := fmt.Sprintf("%d\t%s\t%d\t%d\t%d\t%s\t%d\t%.3f\t%s\t", k+1, s.Name, s.Played, s.Wins, s.Draws, lost, s.Points,
			s.PointsPerMatch.Mean, interval(s.PointsPerMatch))
		if gain {
			line += fmt.Sprintf("%+.3f ± %.3f\t", s.Gain.Mean, (s.Gain.High-s.Gain.Low)/2)
		}
		fmt.Fprintln(tw, line+fmt.Sprintf("%.0f\t%s\t", s.Rating, fallbacks(s)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b.WriteString("\nHead to head: points per match of the row against the column\n\n")
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
			line += fmt.Sprintf("%.2f\t", h.PointsPerMatch.Mean)
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b.WriteString("\nIntervals are 95 % confidence intervals of the mean. ")
	if gain {
		fmt.Fprintf(&b, "Random play earns %.2f points per match against anyone: a strategy is better than chance when its interval lies above it. ", RandomPlay)
	}
	b.WriteString("Ranked by rating: the points per match, as a share of the 3 a win earns, on the Elo scale, mean 1500 (every entry meets every other equally often). ")
	fmt.Fprintf(&b, "Fallbacks: the moves the player answered with its fallback because the strategy failed or was late; "+
		"! marks more than %.0f %% of the moves, where the results are mostly the fallback's.\n", 100*FallbackLimit)
	for _, s := range r.Standings {
		if s.Flagged {
			fmt.Fprintf(&b, "! %s, latest fallback: %s\n", s.Name, s.FallbackCause)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
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
// its points per match with their interval, its gain over random play with
// its interval (even/odd; empty in other games), its rating and fallbacks,
// and a column of points per match against each entry.
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"rank", "entry", "played", "wins", "draws", "losses", "technical_losses", "points",
		"points_per_match", "ci_low", "ci_high", "gain", "gain_low", "gain_high", "rating", "moves", "fallbacks", "flagged", "fallback_cause"}
	for _, s := range r.Standings {
		head = append(head, "vs "+s.Name)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
	for k, s := range r.Standings {
		gain := []string{"", "", ""}
		if s.Gain != nil {
			gain = []string{f(s.Gain.Mean), f(s.Gain.Low), f(s.Gain.High)}
		}
		line := []string{strconv.Itoa(k + 1), s.Name, strconv.Itoa(s.Played), strconv.Itoa(s.Wins), strconv.Itoa(s.Draws),
			strconv.Itoa(s.Losses), strconv.Itoa(s.TechnicalLosses), strconv.Itoa(s.Points),
			f(s.PointsPerMatch.Mean), f(s.PointsPerMatch.Low), f(s.PointsPerMatch.High)}
		line = append(line, gain...)
		line = append(line, f(s.Rating), strconv.FormatInt(s.Moves, 10), strconv.FormatInt(s.Fallbacks, 10),
			strconv.FormatBool(s.Flagged), s.FallbackCause)
		for _, c := range r.Standings {
			if h, ok := r.HeadToHead(s.Name, c.Name); ok {
				line = append(line, f(h.PointsPerMatch.Mean))
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
