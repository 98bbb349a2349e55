package strategies

import (
	"context"
	"io"

	"github.com/agentleague/league/player"
)

// DefaultPrior is the prior weight of an [OpponentModel] made with prior 0.
const DefaultPrior = 2.0

// OpponentModel is the history strategy: it predicts the opponent's choice
// from the opponent's past choices and picks the other parity.
//
// Why that pays: when both players pick the same parity the game is a draw
// (1 point each); when they differ, the drawn number decides and each wins
// half the time (3 or 0 points, 1.5 on average). A player that picks the
// other parity than its opponent never draws and so earns 1.5 points a game
// against 1.25 for random play. Against an opponent that leans to one
// parity, predicting it and answering the other comes close to that.
//
// The model needs no memory of its own: it reads the player's history
// (ParityCall.History), which the Agent keeps on disk, so it remembers
// opponents across restarts.
type OpponentModel struct {
	prior float64
	tie   player.Strategy
}

// NewOpponentModel returns an [OpponentModel]. prior is how many games' worth
// of weight the league-wide tendency has before this opponent's own choices
// speak ([DefaultPrior] when 0 or less); r breaks ties (crypto/rand when nil).
func NewOpponentModel(prior float64, r io.Reader) *OpponentModel {
	if prior <= 0 {
		prior = DefaultPrior
	}
	return &OpponentModel{prior: prior, tie: player.Random(r)}
}

// PredictEven returns the estimated probability that opponentID chooses
// Even: its own choices in h, smoothed towards the tendency of every
// opponent in h, itself smoothed towards one half.
func (m *OpponentModel) PredictEven(h player.History, opponentID string) float64 {
	allEven, allOdd := h.OpponentChoices()
	base := (float64(allEven) + 1) / (float64(allEven+allOdd) + 2)
	even, odd := h.Against(opponentID).OpponentChoices()
	return (float64(even) + m.prior*base) / (float64(even+odd) + m.prior)
}

// ChooseParity implements [player.Strategy]: the other parity than the one
// the opponent is predicted to choose, at random when both are as likely.
func (m *OpponentModel) ChooseParity(ctx context.Context, call player.ParityCall) (player.Parity, error) {
	p := m.PredictEven(call.History, call.OpponentID)
	switch {
	case p > 0.5:
		return player.Odd, nil
	case p < 0.5:
		return player.Even, nil
	}
	return m.tie.ChooseParity(ctx, call)
}
