package player

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/agentleague/league/internal/agentkit"
	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player/internal/playerstore"
)

// Register registers the player with the manager, retrying every
// [Config.RegisterRetry] while the manager cannot be reached (or answers a
// retryable error), until the manager accepts it ([Agent.Registered] is closed,
// the history is loaded), refuses it (a [*leaguesdk.RejectedError]), or ctx
// ends; bound it with ctx's deadline to give up sooner. Registering a
// player that is registered already does nothing. Run calls it; call it
// yourself only when you serve [Agent.Handler] in your own server ([Config.Endpoint]
// must then be set).
func (a *Agent) Register(ctx context.Context) error {
	if a.ID() != "" {
		return nil
	}
	endpoint := a.Endpoint()
	if endpoint == "" {
		return errors.New("player: no contact endpoint to register: set Config.Endpoint or use Run")
	}
	// A player registered before from this endpoint (its token is kept
	// with its history) registers again with its token, and so as itself.
	saved := playerstore.SavedToken(a.cfg.Store, a.cfg.DataRoot, a.cfg.Name, a.cfg.League, endpoint)
	a.gaps.rejoining.Store(saved != "") // gapfill.go
	req := &leaguesdk.LeagueRegisterRequest{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgLeagueRegisterRequest, a.sender(), saved, "", a.cfg.Now()),
		PlayerMeta: leaguesdk.PlayerMeta{
			DisplayName:     a.cfg.Name,
			Version:         a.cfg.Version,
			GameTypes:       a.cfg.GameTypes,
			ContactEndpoint: endpoint,
			ProtocolVersion: leaguesdk.ProtocolVersion,
		},
	}
	a.log.LogAttrs(ctx, slog.LevelDebug, "sending", agentkit.MessageAttrs(req)...)
	var resp *leaguesdk.LeagueRegisterResponse
	defer a.endAttempt() // once the reply is read (or the last attempt failed)
	err := agentkit.Register(ctx, a.log, a.cfg.RegisterRetry, "player", func(ctx context.Context) (err error) {
		ctx, cancel := context.WithTimeout(ctx, a.cfg.RegisterTimeout)
		defer cancel()
		a.beginAttempt()
		resp, err = leaguesdk.CallWith[leaguesdk.LeagueRegisterResponse](ctx, a.client, a.cfg.League, req,
			leaguesdk.CallOptions{Retry: leaguesdk.Once()})
		if err != nil {
			a.endAttempt()
		}
		return err
	})
	if err != nil {
		if errors.As(err, new(*leaguesdk.RejectedError)) {
			return err
		}
		return fmt.Errorf("player: register with %s: %w", a.cfg.League, err)
	}
	a.log.LogAttrs(ctx, slog.LevelDebug, "received", agentkit.MessageAttrs(resp)...)
	if err := a.registerReply(resp); err != nil {
		return err
	}
	if saved != "" {
		a.gaps.rejoining.Store(false)
		a.checkGapAfterRestart() // registered again as itself: results may have come while it was down (gapfill.go)
	}
	return nil
}

// registerReply reads a registration response tolerantly: REGISTERED means
// ACCEPTED, a missing token or league id is accepted, and a missing status
// with a player id counts as acceptance.
func (a *Agent) registerReply(resp *leaguesdk.LeagueRegisterResponse) error {
	accepted := resp.Status.Accepted() || (resp.Status == "" && resp.PlayerID != "")
	if !accepted {
		reason := string(resp.Reason)
		if resp.Status != leaguesdk.StatusRejected {
			reason = strings.TrimSpace(fmt.Sprintf("unexpected registration status %q %s", resp.Status, reason))
		}
		err := &leaguesdk.RejectedError{Agent: "player", Reason: reason}
		a.log.Error("registration rejected", slog.String("reason", reason))
		return err
	}
	id := resp.PlayerID
	if id == "" {
		_, id = leaguesdk.SplitSender(a.sender())
		a.log.Warn("registration reply names no player_id; using the id it asked for", slog.String("player_id", id))
	}
	if resp.AuthToken == "" {
		a.log.Warn("registration reply carries no auth_token; replies will carry none")
	}
	a.mu.Lock()
	a.id, a.token, a.leagueID = id, resp.AuthToken, resp.LeagueID
	endpoint := a.endpoint
	a.mu.Unlock()
	reg := playerstore.Registration{League: a.cfg.League, LeagueID: resp.LeagueID, Endpoint: endpoint, AuthToken: resp.AuthToken}
	setAside, err := a.history.records.Open(a.cfg.Store, a.cfg.DataRoot, id, a.cfg.Name, reg, a.cfg.Now)
	if err != nil {
		// The player can still play; it only plays without its memory.
		a.log.Error("history not loaded", slog.String("error", err.Error()))
	}
	if setAside != "" {
		a.log.Warn("the history file of this league and id was another agent's; kept aside, not read", slog.String("file", setAside))
	}
	if err := a.agentLog.Open(a.cfg.DataRoot, id); err != nil {
		a.log.Error("agent log not opened", slog.String("error", err.Error()))
	}
	a.log.Info("registered", slog.String("player_id", id), slog.String("league_id", resp.LeagueID),
		slog.Int("history_matches", a.history.snapshot().Len()), slog.String("history", a.history.records.File()))
	a.regOnce.Do(func() { close(a.registered) })
	return nil
}

// registrationWait bounds how long a message waits for the reply of a
// registration under way.
const registrationWait = 500 * time.Millisecond

// beginAttempt marks a registration request under way.
func (a *Agent) beginAttempt() {
	ch := make(chan struct{})
	if old := a.attempt.Swap(&ch); old != nil {
		close(*old)
	}
}

// endAttempt marks the registration request under way, if any, over.
func (a *Agent) endAttempt() {
	if ch := a.attempt.Swap(nil); ch != nil {
		close(*ch)
	}
}

// awaitRegistration waits, while a registration request is under way,
// until it has failed or its reply has been read (at most
// registrationWait, or until ctx ends): the manager may announce the first
// round before its reply to the last player's registration has arrived,
// and the announcement is then read with the id and token that reply
// gives, after the player says it registered. A player whose manager does
// not answer waits no longer than its attempt.
func (a *Agent) awaitRegistration(ctx context.Context) {
	ch := a.attempt.Load()
	if ch == nil {
		return
	}
	t := time.NewTimer(registrationWait)
	defer t.Stop()
	select {
	case <-*ch:
	case <-ctx.Done():
	case <-t.C:
	}
}
