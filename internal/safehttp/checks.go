package safehttp

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the tests of how the servers face a network.
func Checks() []spec.Check {
	t := func(id, where string, clauses ...string) spec.Check {
		return spec.Check{ID: id, Kind: spec.KindTest, Clauses: clauses, Where: "internal/safehttp:" + where}
	}
	return []spec.Check{
		t("net/policy", "TestPolicy", "I-NET-1", "I-NET-2"),
		t("net/listen-needs-token", "TestCheckListen", "I-NET-2"),
		t("net/slow-clients-cut-off", "TestSlowClientsAreCutOff", "I-NET-3"),
		t("net/connection-cap", "TestConnectionCap", "I-NET-3"),
		t("net/client-leaves", "TestWorkEndsWhenTheClientLeaves", "I-NET-3"),
		t("net/budget", "TestBudget", "I-NET-4"),
		t("net/answers-room-first", "TestAnswersBuildAgainOnlyOnceRoomIsReserved", "I-NET-4"),
		t("net/budget-cuts-stalled", "TestBudgetCutsStalledHolders", "I-NET-20"),
		t("net/budget-refuses-cycle", "TestBudgetRefusesWhenEveryHolderWaits", "I-NET-20"),
		t("net/listen", "TestListen", "I-NET-2"),
	}
}
