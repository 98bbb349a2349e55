// Package strategies holds ready strategies for the player package, to use
// as they are and to learn from:
//
//   - player.Random (re-exported by name as "random"): even or odd with equal
//     chance, the Agent's default.
//   - Always(leaguesdk.Even), Always(leaguesdk.Odd): the seed's test agents.
//   - OpponentModel ("history"): predicts each opponent from the player's
//     history and picks the other parity, which beats random play against
//     any opponent that leans to one side.
//   - LLM ("llm"): asks a language model through an HTTP generate-content
//     API, configured from LEAGUE_LLM_ENDPOINT, LEAGUE_LLM_MODEL and
//     LEAGUE_LLM_API_KEY; when the model fails or rambles the Agent's
//     fallback answers.
//
// Use one directly or by name:
//
//	s, err := strategies.ByName("history", nil)
//	if err != nil {
//		log.Fatal(err)
//	}
//	a, err := player.New(player.Config{Name: "Alpha", League: league, Strategy: s})
package strategies
