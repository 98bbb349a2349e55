// Package strategies holds ready strategies for the [player] package, to use
// as they are and to learn from.
//
// The strategies, each with the name [ByName] knows it by:
//
//   - [player.Random] ("random"): even or odd with equal chance, the
//     [player.Agent]'s default.
//   - [Always]([player.Even]), [Always]([player.Odd]) ("always_even",
//     "always_odd"): the seed's test agents.
//   - [OpponentModel] ("history"): predicts each opponent from the player's
//     history and picks the other parity, which beats random play against
//     any opponent that leans to one side.
//   - [LLM] ("llm"): asks a language model through Google's generate-content
//     API, configured from LEAGUE_LLM_ENDPOINT, LEAGUE_LLM_MODEL and
//     LEAGUE_LLM_API_KEY; when the model fails or rambles the Agent's
//     fallback answers.
//   - [Chat] ("llm_chat"): the same through the chat completions API of
//     Ollama, llama.cpp's server, vLLM, LM Studio, OpenAI and most hosted
//     services, configured from LEAGUE_CHAT_BASE_URL (a local Ollama by
//     default), LEAGUE_CHAT_MODEL and LEAGUE_CHAT_API_KEY (optional).
//
// Both model strategies send the same prompt ([Prompt]) and read the answer
// the same way ([ParseParity]); an HTTP error of either API is an [*APIError].
// They are a few lines of request code of this module rather than a
// vendor's client library: each makes one POST and reads one field, the
// servers that speak the chat completions API implement only that subset
// of OpenAI's, and an SDK would add a dependency tree to every program
// that imports this package.
//
// Use one directly or by name:
//
//	s, err := strategies.ByName("history", nil)
//	if err != nil {
//		log.Fatal(err)
//	}
//	a, err := player.New(player.Config{Name: "Alpha", League: league, Strategy: s})
package strategies
