import Foundation
import Synchronization
import SyncClient

#if canImport(Glibc)
import Glibc
#endif

/// A device's disk as the simulation sees it, under the engine's writes (``DiskStep``): it counts
/// a sync's steps and can stop the engine at any one of them (a crash: that step and every later
/// one throws, and the network dies with it), and it keeps what was not yet durable apart, so
/// that a power cut can undo it: a staged file's unsynced bytes, a rename or a removal not
/// followed by a flush. `sync.db` runs SQLite's default full synchronous mode, so a commit is
/// durable once made and an interrupted one is rolled back.
///
/// A power cut hits only the sync it interrupts: between syncs the kernel writes everything back
/// (its dirty-page expiry is 30 s), so each sync starts with nothing volatile.
final class SimDisk: DiskSteps, Sendable {
    /// A write a power cut undoes, with what it needs to undo it.
    private enum Volatile {
        /// A staged file whose bytes were not fsynced: it is left empty.
        case created(URL)
        /// A rename: the file goes back, and what it replaced (kept as a hard link) returns.
        case renamed(URL, to: URL, replaced: URL?)
        /// A removal: the file (kept as a hard link) returns.
        case removed(URL, kept: URL)
    }

    private struct State {
        var crashAt: Int?
        var steps = 0
        var crashed = false
        var volatile: [Volatile] = []
        var kept = 0
    }

    private let state = Mutex(State())
    /// Where replaced and removed files are kept (hard links: the same file system, outside the vaults).
    private let keep: URL
    private let onCrash: @Sendable () -> Void
    /// Prints each step (replaying a failure by hand).
    private let verbose: Bool

    init(keep: URL, verbose: Bool = false, onCrash: @escaping @Sendable () -> Void) {
        self.keep = keep
        self.verbose = verbose
        self.onCrash = onCrash
    }

    /// Starts a sync: steps are counted from here, and the engine stops at the `crashAt`-th (from 1).
    func arm(crashAt: Int?) {
        settle()
        state.withLock { $0 = State(crashAt: crashAt, kept: $0.kept) }
    }

    /// Whether the engine was stopped at a step.
    var crashed: Bool { state.withLock { $0.crashed } }
    /// Steps counted since ``arm(crashAt:)``.
    var steps: Int { state.withLock { $0.steps } }

    func before(_ step: DiskStep) throws {
        let crashedNow = try state.withLock { state -> Bool in
            if state.crashed { throw SimulatedCrash() }
            state.steps += 1
            if verbose { print("  disk step \(state.steps): \(step)") }
            if state.steps == state.crashAt {
                state.crashed = true
                return true
            }
            switch step {
            case .stage(let url, let durable):
                if !durable { state.volatile.append(.created(url)) }
            case .rename(let from, let to):
                state.volatile.append(.renamed(from, to: to, replaced: keepLink(to, &state)))
            case .remove(let url):
                if let kept = keepLink(url, &state) { state.volatile.append(.removed(url, kept: kept)) }
            case .flush:
                state.volatile = []
            case .commit:
                break
            }
            return false
        }
        if crashedNow {
            onCrash()
            throw SimulatedCrash()
        }
    }

    /// A hard link to the file at `url`, if there is one, so that undoing can bring it back.
    private func keepLink(_ url: URL, _ state: inout State) -> URL? {
        try? FileManager.default.createDirectory(at: keep, withIntermediateDirectories: true)
        state.kept += 1
        let kept = keep.appendingPathComponent("kept-\(state.kept)")
        return link(url.path, kept.path) == 0 ? kept : nil
    }

    /// The power went: what was not durable is undone, the latest first.
    func losePower() {
        let volatile = state.withLock { state in
            defer { state.volatile = [] }
            return state.volatile
        }
        for write in volatile.reversed() {
            switch write {
            case .created(let url):
                if FileManager.default.fileExists(atPath: url.path) { _ = truncate(url.path, 0) }
            case .renamed(let from, let to, let replaced):
                _ = rename(to.path, from.path)
                if let replaced { _ = rename(replaced.path, to.path) }
            case .removed(let url, let kept):
                try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                _ = rename(kept.path, url.path)
            }
        }
        settle()
    }

    /// Everything written so far is durable: the kept links go.
    func settle() {
        state.withLock { $0.volatile = [] }
        try? FileManager.default.removeItem(at: keep)
    }
}
