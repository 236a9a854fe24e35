import Foundation
import Synchronization
import SyncCore
import SyncProtocol

/// A file to push: where it is on disk, what it holds, and the server version it replaces.
struct PushCandidate: Sendable, SizedFile {
    var path: VaultPath
    var diskPath: String
    var hash: ContentHash
    var sizeBytes: Int64
    var base: Int?
    /// In an encrypted vault, the ciphertext sent instead (``VaultCipher/seal(_:root:)``).
    var sealed: SealedForm?

    /// The hash and size the server is told: the ciphertext's in an encrypted vault.
    var wireHash: ContentHash { sealed?.hash ?? hash }
    var wireSize: Int64 { sealed?.sizeBytes ?? sizeBytes }

    /// The bytes sent: the vault's file; in an encrypted vault its ciphertext, staged or (a small
    /// file) in memory, and nil when a ciphertext the vault holds is reused.
    func bytes(in root: URL) -> PushBytes? {
        guard let sealed else { return .file(root.appendingPathComponent(diskPath)) }
        if let data = sealed.data { return .memory(data) }
        return sealed.file.map(PushBytes.file)
    }

    /// Removes a staged ciphertext once it is no longer needed.
    func discardSealed() {
        if let file = sealed?.file { try? FileManager.default.removeItem(at: file) }
    }
}

/// Where the bytes of a push are.
enum PushBytes: Sendable {
    case file(URL)
    case memory(Data)

    /// The bytes (read from the file).
    func read() throws -> Data {
        switch self {
        case .file(let url): try Data(contentsOf: url)
        case .memory(let data): data
        }
    }
}

/// Who wrote the server's version of a path that also exists here, and when (server time): names
/// conflict copies, and decides last-writer-wins merges.
struct RemoteAuthor: Sendable {
    var device: String?
    var at: Date
}

/// What the phases of one round read: the scan, the server's state, who wrote what, and how
/// files changed on both sides merge. Nothing in it changes while the round runs.
struct RoundContext: Sendable {
    let scan: LocalScan
    let authors: CompactDictionary<VaultPath, RemoteAuthor>
    let remote: CompactDictionary<VaultPath, RemoteEntry>
    /// Whether `remote` holds only the changes after the cursor (else the server's full state,
    /// where a synced path it does not list was deleted long ago).
    let remoteIsIncremental: Bool
    /// What was last synced, as the plan saw it.
    let synced: CompactDictionary<VaultPath, SyncedEntry>
    /// How files changed on both sides merge (the vault's `.vaultsyncmerge`).
    let mergePolicies: MergePolicies
    /// Edits kept over another device's deletion: who deleted them (reported once pushed).
    let keptOverDelete: [VaultPath: String?]
    let progress: ProgressTracker

    /// Whether this round's read of the server changed `path` from what was last synced: another
    /// version, or in a full read a synced path it no longer lists (deleted long ago). A push that
    /// answers such a change and does not land has the change read again, not passed by the cursor.
    func readChanged(_ path: VaultPath) -> Bool {
        if let entry = remote[path] { return entry.version != synced[path]?.version }
        return !remoteIsIncremental && synced[path] != nil
    }

    func remoteSize(_ path: VaultPath) -> Int64 {
        if case .live(_, _, let size)? = remote[path] { return size }
        return 0
    }

    func diskPath(_ path: VaultPath) -> String { scan.file(path)?.diskPath ?? path.rawValue }

    /// A push of the plan as the executor sends it: with the file's name on disk.
    func candidate(_ push: ExecutionPlan.Push) -> PushCandidate {
        PushCandidate(path: push.path, diskPath: diskPath(push.path), hash: push.hash, sizeBytes: push.sizeBytes, base: push.base)
    }
}

/// Files handled and bytes moved in a round, told to whoever watches (`vaultsync sync`'s progress line).
final class ProgressTracker: Sendable {
    private let state: Mutex<SyncProgress>
    private let onProgress: SyncProgressHandler?

    init(_ onProgress: SyncProgressHandler?) {
        self.onProgress = onProgress
        self.state = Mutex(SyncProgress(phase: .transferring))
    }

    /// The totals of a plan: every file acted on, and the bytes to move each way.
    func start(files: Int, bytes: Int64) {
        let progress = state.withLock { progress in
            (progress.filesTotal, progress.bytesTotal) = (files, bytes)
            return progress
        }
        onProgress?(progress)
    }

    /// Counts files handled (done or failed) and bytes moved, and tells the observer.
    func advance(files: Int, bytes: Int64 = 0) {
        guard files > 0 || bytes > 0 else { return }
        let progress = state.withLock { progress in
            progress.filesDone += files
            progress.bytesDone += bytes
            // Merges that push on top add work after the totals were set.
            progress.filesTotal = max(progress.filesTotal, progress.filesDone)
            progress.bytesTotal = max(progress.bytesTotal, progress.bytesDone)
            return progress
        }
        onProgress?(progress)
    }

    /// A meter for the bytes of the next step (`bytes` of them) as they move; nil when nobody watches.
    func meter(upTo bytes: Int64) -> ByteMeter? {
        onProgress.map { ByteMeter(base: state.withLock { $0 }, limit: bytes, handler: $0) }
    }
}

/// What a phase of the execution did: folded, phase after phase, into the round's result and
/// then into the sync's report.
struct PhaseResult: Sendable {
    var pushed: [VaultPath] = []
    var pulled: [VaultPath] = []
    var merged: [VaultPath] = []
    var deletedLocally: [VaultPath] = []
    var deletedRemotely: [VaultPath] = []
    /// Local copies removed because they are outside this device's folders.
    var leftOut: [VaultPath] = []
    var failures: [Uploader.Failure] = []
    var notices: [String] = []
    /// False when some remote change could not be applied: the cursor then stays where it was.
    var remoteSideComplete = true
    /// The server changed under a push or delete: plan again in this run.
    var replan = false
    /// Where the next sync reads the server's changes from, when a phase moved it past this
    /// run's own changes (``ConfirmResponse/cursor``).
    var cursor: String?
    /// Files a merge wrote, to push on top of the server's version.
    var followUps: [PushCandidate] = []
    /// The account's quota or the server's storage is full: the server's words.
    var storageFull: String?
    /// Something was stored: a "storage full" from before no longer holds.
    var storedAny = false

    /// A per-file failure; only one that belongs to the file counts towards parking.
    mutating func fail(_ path: VaultPath, _ error: any Error) {
        fail(path, "\(error)", counts: SyncReport.belongsToFile(error))
    }

    mutating func fail(_ path: VaultPath, _ message: String, counts: Bool = true) {
        failures.append(Uploader.Failure(path: path, message: message, counts: counts))
    }

    /// `other` after this.
    mutating func add(_ other: PhaseResult) {
        pushed += other.pushed
        pulled += other.pulled
        merged += other.merged
        deletedLocally += other.deletedLocally
        deletedRemotely += other.deletedRemotely
        leftOut += other.leftOut
        failures += other.failures
        notices += other.notices
        remoteSideComplete = remoteSideComplete && other.remoteSideComplete
        replan = replan || other.replan
        cursor = other.cursor ?? cursor
        followUps += other.followUps
        storageFull = other.storageFull ?? storageFull
        storedAny = storedAny || other.storedAny
    }

    /// Adds what the phases did to the sync's report.
    func fold(into report: inout SyncReport) {
        report.pushed += pushed
        report.pulled += pulled
        report.merged += merged
        report.deletedLocally += deletedLocally
        report.deletedRemotely += deletedRemotely
        report.leftOut += leftOut
        for failure in failures { report.fail(failure.path, failure.message, counts: failure.counts) }
        report.notices += notices
        if let storageFull { report.storageFull = storageFull }
    }
}

extension RandomAccessCollection where Index == Int {
    func chunked(_ size: Int) -> [SubSequence] {
        stride(from: startIndex, to: endIndex, by: Swift.max(1, size)).map { self[$0..<Swift.min(endIndex, $0 + size)] }
    }
}

/// A round's pushes as the executor sends them: the plan's, then the merges' follow-ups, each
/// plan push made a ``PushCandidate`` only when its batch is sent. All of them made at once cost
/// 160 bytes a file beside the plan's own (16 MB at a first upload of 100,000 notes).
struct PushCandidates: RandomAccessCollection {
    let planned: [ExecutionPlan.Push]
    let followUps: [PushCandidate]
    let context: RoundContext

    var startIndex: Int { 0 }
    var endIndex: Int { planned.count + followUps.count }
    subscript(index: Int) -> PushCandidate {
        index < planned.count ? context.candidate(planned[index]) : followUps[index - planned.count]
    }
}
