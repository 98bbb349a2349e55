package player

import (
	"context"

	"github.com/agentleague/league/leaguesdk"
)

// Query sends a LEAGUE_QUERY of type qt to the manager, with the player's
// token, and returns the manager's answer. params may be nil; its player
// id defaults to this player's, but for GET_SCHEDULE, which asks for the
// whole league's schedule unless params name a player ([Agent.OwnMatches]). A query the manager answers with
// success false comes back as an [*leaguesdk.Error] with the manager's code.
// Querying before registration fails with E005 (PLAYER_NOT_REGISTERED).
// A ctx without a deadline gets [Config.QueryTimeout].
func (a *Agent) Query(ctx context.Context, qt leaguesdk.QueryType, params *leaguesdk.QueryParams) (*leaguesdk.LeagueQueryResponse, error) {
	id, token := a.credentials()
	if id == "" {
		return nil, leaguesdk.NewError(leaguesdk.CodePlayerNotRegistered, "the player is not registered yet")
	}
	p := &leaguesdk.QueryParams{PlayerID: id}
	switch {
	case params != nil && params.PlayerID != "":
		p = params
	case qt == leaguesdk.QuerySchedule:
		p = nil
	}
	q := &leaguesdk.LeagueQuery{
		Envelope:    leaguesdk.NewEnvelope(leaguesdk.MsgLeagueQuery, leaguesdk.PlayerSender(id), token, "", a.cfg.Now()),
		LeagueID:    a.LeagueID(),
		QueryType:   qt,
		QueryParams: p,
	}
	resp, err := leaguesdk.Call[leaguesdk.LeagueQueryResponse](ctx, a.client, a.cfg.League, q)
	if err != nil {
		return nil, err
	}
	if !resp.Success && resp.Error != nil {
		return resp, &leaguesdk.Error{Code: resp.Error.ErrorCode, Message: resp.Error.ErrorDescription,
			Endpoint: a.cfg.League, Method: leaguesdk.MethodLeagueQuery}
	}
	return resp, nil
}

// queryData runs a query and decodes its data into v.
func queryData[T any](ctx context.Context, a *Agent, qt leaguesdk.QueryType, params *leaguesdk.QueryParams) (*T, error) {
	resp, err := a.Query(ctx, qt, params)
	if err != nil {
		return nil, err
	}
	v := new(T)
	if err := resp.DecodeData(v); err != nil {
		return nil, err
	}
	return v, nil
}

// Standings asks the manager for the league table (GET_STANDINGS).
func (a *Agent) Standings(ctx context.Context) ([]StandingRow, error) {
	d, err := queryData[leaguesdk.StandingsData](ctx, a, leaguesdk.QueryStandings, nil)
	if err != nil {
		return nil, err
	}
	return d.Standings, nil
}

// Schedule asks the manager for the league's matches (GET_SCHEDULE): every
// match of the league, n(n-1)/2 of them, an answer that grows with the
// square of the players. A player that wants its own matches asks
// [Agent.OwnMatches].
func (a *Agent) Schedule(ctx context.Context) ([]leaguesdk.ScheduleEntry, error) {
	d, err := queryData[leaguesdk.ScheduleData](ctx, a, leaguesdk.QuerySchedule, nil)
	if err != nil {
		return nil, err
	}
	return d.Matches, nil
}

// OwnMatches asks the manager for the player's own matches: GET_SCHEDULE
// with query_params.player_id, an answer of the size of the player's part
// of the league. A manager that ignores the filter answers with the whole
// schedule, of which OwnMatches returns the player's entries only.
func (a *Agent) OwnMatches(ctx context.Context) ([]leaguesdk.ScheduleEntry, error) {
	me, _ := a.credentials()
	d, err := queryData[leaguesdk.ScheduleData](ctx, a, leaguesdk.QuerySchedule, &leaguesdk.QueryParams{PlayerID: me})
	if err != nil {
		return nil, err
	}
	mine := d.Matches[:0]
	for _, e := range d.Matches {
		if sameID(e.PlayerAID, me) || sameID(e.PlayerBID, me) {
			mine = append(mine, e)
		}
	}
	return mine, nil
}

// NextMatch asks the manager for the player's next match
// (GET_NEXT_MATCH); it returns nil, nil when none is left.
func (a *Agent) NextMatch(ctx context.Context) (*leaguesdk.NextMatch, error) {
	d, err := queryData[leaguesdk.NextMatchData](ctx, a, leaguesdk.QueryNextMatch, nil)
	if err != nil {
		return nil, err
	}
	return d.NextMatch, nil
}

// Stats asks the manager for the player's statistics (GET_PLAYER_STATS).
func (a *Agent) Stats(ctx context.Context) (*leaguesdk.PlayerStatsData, error) {
	return queryData[leaguesdk.PlayerStatsData](ctx, a, leaguesdk.QueryPlayerStats, nil)
}
