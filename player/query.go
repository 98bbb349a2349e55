package player

import (
	"context"

	"github.com/agentleague/league/leaguesdk"
)

// Query sends a LEAGUE_QUERY of type qt to the manager, with the player's
// token, and returns the manager's answer. params may be nil; its player
// id defaults to this player's. A query the manager answers with
// success false comes back as an [*leaguesdk.Error] with the manager's code.
// Querying before registration fails with E005 (PLAYER_NOT_REGISTERED).
// A ctx without a deadline gets [Config.QueryTimeout].
func (a *Agent) Query(ctx context.Context, qt leaguesdk.QueryType, params *leaguesdk.QueryParams) (*leaguesdk.LeagueQueryResponse, error) {
	id, token := a.credentials()
	if id == "" {
		return nil, leaguesdk.NewError(leaguesdk.CodePlayerNotRegistered, "the player is not registered yet")
	}
	p := leaguesdk.QueryParams{PlayerID: id}
	if params != nil && params.PlayerID != "" {
		p = *params
	}
	q := &leaguesdk.LeagueQuery{
		Envelope:    leaguesdk.NewEnvelope(leaguesdk.MsgLeagueQuery, leaguesdk.PlayerSender(id), token, "", a.cfg.Now()),
		LeagueID:    a.LeagueID(),
		QueryType:   qt,
		QueryParams: &p,
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
func queryData[T any](ctx context.Context, a *Agent, qt leaguesdk.QueryType) (*T, error) {
	resp, err := a.Query(ctx, qt, nil)
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
	d, err := queryData[leaguesdk.StandingsData](ctx, a, leaguesdk.QueryStandings)
	if err != nil {
		return nil, err
	}
	return d.Standings, nil
}

// Schedule asks the manager for the league's matches (GET_SCHEDULE).
func (a *Agent) Schedule(ctx context.Context) ([]leaguesdk.ScheduleEntry, error) {
	d, err := queryData[leaguesdk.ScheduleData](ctx, a, leaguesdk.QuerySchedule)
	if err != nil {
		return nil, err
	}
	return d.Matches, nil
}

// NextMatch asks the manager for the player's next match
// (GET_NEXT_MATCH); it returns nil, nil when none is left.
func (a *Agent) NextMatch(ctx context.Context) (*leaguesdk.NextMatch, error) {
	d, err := queryData[leaguesdk.NextMatchData](ctx, a, leaguesdk.QueryNextMatch)
	if err != nil {
		return nil, err
	}
	return d.NextMatch, nil
}

// Stats asks the manager for the player's statistics (GET_PLAYER_STATS).
func (a *Agent) Stats(ctx context.Context) (*leaguesdk.PlayerStatsData, error) {
	return queryData[leaguesdk.PlayerStatsData](ctx, a, leaguesdk.QueryPlayerStats)
}
