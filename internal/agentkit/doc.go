// Package agentkit holds the plumbing the three agents share: their
// lifecycle (listen, advertise, serve, register or run the league, stop
// with grace, release), registering with a manager that may not be up
// yet, the Config convention, the registry of the tokens a manager
// issues ([Tokens]), and the agent log: its JSON-lines format ([NewLogger])
// and the per-agent log file of the data layer.
//
// Quick start, the skeleton of an agent:
//
//	a.runner = agentkit.NewLifecycle("player", release) // in New
//
//	func (a *Agent) Run(ctx context.Context) error {
//		return a.runner.Run(ctx, agentkit.Spec{
//			Listener: cfg.Listener, Addr: cfg.Addr, TLS: cfg.TLS,
//			Handler: handler, Grace: cfg.ShutdownGrace, Log: log,
//			Listening: func(endpoint string) error { … advertise it … },
//			Work:      a.Register, // retried while the manager is down
//		})
//	}
//	func (a *Agent) Shutdown(ctx context.Context) error { return a.runner.Shutdown(ctx, nil) }
//	func (a *Agent) Close() error                       { return a.runner.Close() }
//
// Every agent writes its JSON-lines log through an [AgentLog], opened at
// logs/agents/<agent_id>.log.jsonl once the id is known (at once for the
// manager, after registration for players and referees):
//
//	alog := agentkit.NewAgentLog(leaguesdk.NameSender("player", name), slog.LevelInfo)
//	log := alog.Logger(cfg.Logger)
//	defer alog.Close()
//	// … once registered:
//	err := alog.Open(dataRoot, playerID)
//
// Shared by the three agents (player, referee, manager) and the arena,
// which checks its Config with [ConfigCheck]; it imports leaguesdk, whose
// messages and Server it runs.
package agentkit
