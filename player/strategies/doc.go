// Package strategies holds ready strategies for the [player] package, to use
// as they are and to learn from.
//
// The strategies, each with the name [ByName] knows it by:
//
//   - [player.Random] ("random"): even or odd with equal chance, the
//     [player.Agent]'s default.
//   - [Always]([player.Even]), [Always]([player.Odd]) ("always_even",
//     "always_odd"): an opponent that always plays the same, for tests
//     and for measuring a strategy against a habit.
//   - [Leaning]: even with a given probability, odd otherwise; an
//     opponent with a habit, for an arena's pool.
//   - [OpponentModel] ("history"): predicts each opponent from the player's
//     history and picks the other parity, which beats random play against
//     any opponent that leans to one side.
//
// The strategies that ask a language model, llm.Chat ("llm_chat", any chat
// completions server: Ollama, llama.cpp's server, vLLM, LM Studio, OpenAI)
// and llm.Gemini ("llm", Google's generate-content API), are in package
// [github.com/agentleague/league/player/strategies/llm], on the SDKs of
// those APIs: a player that does not import it links neither SDK.
//
// Use one directly or by name:
//
//	s, err := strategies.ByName("history", nil)
//	if err != nil {
//		log.Fatal(err)
//	}
//	a, err := player.New(player.Config{Name: "Alpha", League: league, Strategy: s})
package strategies
