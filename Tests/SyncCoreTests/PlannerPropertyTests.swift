import Foundation
import SeededRandom
import SyncCore
import SyncProtocol
import Testing

/// The planner against random but correlated (local, remote, synced) states: each plan is carried
/// out in a shuffled order with actions failing at random (before the server acted, or after it
/// acted but before the device recorded it), then re-planned, until the faults stop and the plan
/// runs dry. A failure shrinks to a minimal case and prints it with the seed that replays it
/// (`VAULTSYNC_PLANNER_SEED`, default 20261123 so that CI runs a fixed sample;
/// `VAULTSYNC_PLANNER_CASES` sets how many cases run).
@Suite struct PlannerPropertyTests {
    /// Rounds with faults, then at most this many without before the plan must be empty.
    static let faultRounds = 4
    static let settleRounds = 8

    @Test func randomStatesConvergeWithoutLosingAChange() async {
        let seed = SplitMix.seed("VAULTSYNC_PLANNER_SEED", default: 20_261_123)
        let cases = SplitMix.count("VAULTSYNC_PLANNER_CASES", default: 20_000)
        // A minute of pure work on a thread of its own: on one of the cooperative pool's threads
        // (two on CI) it would stall every other test's async work for that long.
        let found: String? = await withCheckedContinuation { done in
            Thread {
                for index in 0..<cases {
                    var rng = SplitMix(seed: SplitMix.derive(seed, index))
                    let generated = PlannerCase.random(&rng)
                    guard let failure = Self.failure(of: generated) else { continue }
                    let (minimal, reason) = Self.shrink(generated, failure)
                    return done.resume(returning: "VAULTSYNC_PLANNER_SEED=\(seed) VAULTSYNC_PLANNER_CASES=\(index + 1): \(reason)\nminimal case:\n\(minimal)")
                }
                done.resume(returning: nil)
            }.start()
        }
        if let found { Issue.record(Comment(rawValue: found)) }
    }

    /// A failure this test must report, so that it is known to bite: a planner that pushed the
    /// deletion of every file it could not see would lose files other devices edited or kept.
    @Test func theInvariantsCatchAPlannerThatDeletesWhatItIgnores() {
        var rng = SplitMix(seed: 7)
        var caught: String?
        for _ in 0..<2_000 where caught == nil {
            caught = Self.failure(of: PlannerCase.random(&rng), planner: Self.ignoringIgnoreRules)
        }
        #expect(caught != nil)
    }

    /// The real planner, but blind to ignore rules, as it was before they reached it.
    static func ignoringIgnoreRules(_ input: SyncPlanInput) -> SyncPlan {
        var input = input
        input.ignore = nil
        return SyncPlanner.plan(input)
    }

    /// Runs `plannerCase` and returns the first broken invariant, if any.
    static func failure(of plannerCase: PlannerCase, planner: (SyncPlanInput) -> SyncPlan = SyncPlanner.plan) -> String? {
        let start = PlannerWorld(plannerCase)
        var world = start
        var rng = SplitMix(seed: plannerCase.faultSeed)
        var refusedRounds: [VaultPath: Int] = [:]
        var parked: Set<VaultPath> = []
        var settled = false
        for round in 0..<(faultRounds + settleRounds) {
            let faulty = round < faultRounds
            let plan = planner(world.input)
            if let unsafe = unsafeAction(in: plan, world: world) { return "round \(round): \(unsafe)" }
            let actions = plan.actions.filter { $0.path.map { !parked.contains($0) } ?? false }
            if actions.isEmpty {
                settled = true
                break
            }
            var refusedNow: Set<VaultPath> = []
            for action in actions.shuffled(using: &rng) {
                let roll = Int.random(in: 0..<100, using: &rng)
                let fault: PlannerWorld.Fault = !faulty ? .none : roll < 20 ? .before : roll < 35 ? .after : .none
                if world.apply(action, fault: fault) == .refused, let path = action.path { refusedNow.insert(path) }
            }
            // As the engine does: a file refused on three runs in a row is parked (held back).
            // Faults are over by then, so only refusals that stay count.
            if !faulty {
                for path in refusedNow {
                    refusedRounds[path, default: 0] += 1
                    if refusedRounds[path]! >= 3 { parked.insert(path) }
                }
                for path in refusedRounds.keys where !refusedNow.contains(path) { refusedRounds[path] = 0 }
            }
        }
        guard settled else { return "no settled plan after \(faultRounds) faulty and \(settleRounds) clean rounds" }
        return finalState(world, start: start, plannerCase: plannerCase, parked: parked)
    }

    /// Actions that could lose data: deleting a file changed since the last sync (on either side),
    /// or touching a path the device ignores.
    static func unsafeAction(in plan: SyncPlan, world: PlannerWorld) -> String? {
        for action in plan.actions {
            guard let path = action.path else { continue }
            if world.isIgnored(path) { return "\(action) touches an ignored path" }
            switch action {
            case .deleteLocal:
                guard let local = world.local[path], let synced = world.synced[path], local.hash == synced.hash else {
                    return "\(action) deletes a local file changed since the last sync"
                }
            case .pushDelete(_, let base):
                guard let synced = world.synced[path], synced.version == base, case .live(base, let tokens)? = world.server[path], tokens.hash == synced.hash,
                    world.local[path] == nil
                else { return "\(action) deletes a server file changed since the last sync (or still here)" }
            default: break
            }
        }
        return nil
    }

    /// The final state against what each path's changes call for.
    static func finalState(_ world: PlannerWorld, start: PlannerWorld, plannerCase: PlannerCase, parked: Set<VaultPath>) -> String? {
        for entry in plannerCase.entries {
            let path = entry.path
            let local = world.local[path]
            let server = world.server[path]?.tokens
            if start.isIgnored(path) {
                if local != start.local[path] || world.server[path] != start.server[path] { return "\(path): ignored, but changed" }
                continue
            }
            let expected = expectedContent(entry)
            if parked.contains(path) {
                let blocked = (local != nil && world.caseTwin(of: path) != nil) || (server != nil && local == nil && !world.localTreeAllows(path))
                if !blocked { return "\(path): parked, but nothing blocks it" }
                if let expected, !expected.set.isSubset(of: (local ?? Tokens(set: [])).union(server ?? Tokens(set: [])).set) {
                    return "\(path): parked and lost \(expected.set.subtracting((local ?? Tokens(set: [])).union(server ?? Tokens(set: [])).set))"
                }
                continue
            }
            if local != server { return "\(path): device has \(local?.description ?? "nothing"), server \(server?.description ?? "nothing")" }
            switch (expected, server) {
            case (nil, nil): break
            case (nil, let server?): return "\(path): should be gone, server has \(server)"
            case (let expected?, nil): return "\(path): lost \(expected)"
            case (let expected?, let server?):
                if !expected.set.isSubset(of: server.set) { return "\(path): lost \(expected.set.subtracting(server.set))" }
            }
            let synced = world.synced[path]
            if let entry = world.server[path], entry.tokens != nil, synced != SyncedEntry(hash: server!.hash, version: entry.version) {
                return "\(path): synced state \(String(describing: synced)) does not match the server's v\(entry.version)"
            }
        }
        return nil
    }

    /// What a path must hold at the end (nil: nothing): one side's change wins over an unchanged
    /// side, an edit wins over a deletion, two edits are both kept.
    static func expectedContent(_ entry: PlannerCase.Entry) -> Tokens? {
        let base = entry.synced?.tokens
        func intent(_ change: PlannerCase.Change) -> Tokens? {
            switch change {
            case .none: base
            case .edit(let token): base?.adding(token)
            case .create(let tokens): tokens
            case .delete, .purge, .tombstone: nil
            }
        }
        let (local, remote) = (intent(entry.local), intent(entry.remote))
        switch (entry.local != .none, entry.remote != .none) {
        case (false, false): return base
        case (true, false): return local
        case (false, true): return remote
        case (true, true):
            switch (local, remote) {
            case (let local?, let remote?): return local.union(remote)
            case (let one?, nil), (nil, let one?): return one
            case (nil, nil): return nil
            }
        }
    }

    /// Simplifies a failing case while it keeps failing: fewer paths, fewer changes, fewer patterns.
    static func shrink(_ failing: PlannerCase, _ reason: String) -> (PlannerCase, String) {
        var best = (failing, reason)
        var improved = true
        while improved {
            improved = false
            for var candidate in simplifications(of: best.0) {
                candidate.makeTreesValid()
                if let reason = failure(of: candidate) {
                    best = (candidate, reason)
                    improved = true
                    break
                }
            }
        }
        return best
    }

    static func simplifications(of plannerCase: PlannerCase) -> [PlannerCase] {
        var candidates: [PlannerCase] = []
        for index in plannerCase.entries.indices {
            var fewer = plannerCase
            fewer.entries.remove(at: index)
            candidates.append(fewer)
        }
        for index in plannerCase.entries.indices {
            for side in [\PlannerCase.Entry.local, \PlannerCase.Entry.remote] where plannerCase.entries[index][keyPath: side] != .none {
                var calmer = plannerCase
                calmer.entries[index][keyPath: side] = .none
                candidates.append(calmer)
            }
        }
        for index in plannerCase.ignorePatterns.indices {
            var fewer = plannerCase
            fewer.ignorePatterns.remove(at: index)
            candidates.append(fewer)
        }
        if plannerCase.incremental {
            var full = plannerCase
            full.incremental = false
            candidates.append(full)
        }
        return candidates
    }
}
