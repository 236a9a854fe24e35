import Foundation
import SyncCore
import SyncProtocol

/// A file to push: where it is on disk, what it holds, and the server version it replaces.
struct PushCandidate: Sendable {
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

/// One round's plan sorted into work lists, and what happened while carrying it out.
struct Execution {
    let scan: LocalScan
    let synced: [VaultPath: SyncedEntry]
    let authors: [VaultPath: RemoteAuthor]
    /// How files changed on both sides merge (the vault's `.vaultsyncmerge`).
    var mergePolicies = MergePolicies()

    var records: [VaultPath: SyncedEntry] = [:]
    var forgets: [VaultPath] = []
    var pulls: [VaultPath] = []
    var restores: Set<VaultPath> = []
    var localDeletes: [VaultPath] = []
    var merges: [(path: VaultPath, base: SyncedEntry?)] = []
    var remoteDeletes: [(path: VaultPath, base: Int)] = []
    var pushes: [PushCandidate] = []
    var keptOverDelete: [VaultPath: String?] = [:]

    /// False when some remote change could not be applied: the cursor then stays where it was.
    var remoteSideComplete = true
    /// Where the next sync reads the server's changes from: the state's cursor, moved past this
    /// run's own confirms when the server says nothing else happened (``ConfirmResponse/cursor``).
    var cursor: String?
    /// True when the server changed under a push or delete: plan again in this run.
    var serverMovedUnderUs = false

    let remote: [VaultPath: RemoteEntry]
    let onProgress: SyncProgressHandler?
    private(set) var progress = SyncProgress(phase: .transferring)

    init(scan: LocalScan, synced: [VaultPath: SyncedEntry], authors: [VaultPath: RemoteAuthor], remote: [VaultPath: RemoteEntry] = [:], onProgress: SyncProgressHandler? = nil) {
        self.scan = scan
        self.synced = synced
        self.authors = authors
        self.remote = remote
        self.onProgress = onProgress
    }

    /// Totals of the sorted plan: every file acted on, and the bytes to move each way.
    mutating func startProgress() {
        let pullBytes = (pulls + merges.map(\.path)).reduce(Int64(0)) { $0 + remoteSize($1) }
        progress.filesTotal = pulls.count + localDeletes.count + merges.count + remoteDeletes.count + pushes.count
        progress.bytesTotal = pullBytes + pushes.reduce(Int64(0)) { $0 + $1.sizeBytes }
        onProgress?(progress)
    }

    /// Counts files handled (done or failed) and bytes moved, and tells the observer.
    mutating func advance(files: Int, bytes: Int64 = 0) {
        guard files > 0 || bytes > 0 else { return }
        progress.filesDone += files
        progress.bytesDone += bytes
        // Merges that push on top add work after the totals were set.
        progress.filesTotal = max(progress.filesTotal, progress.filesDone)
        progress.bytesTotal = max(progress.bytesTotal, progress.bytesDone)
        onProgress?(progress)
    }

    /// A meter for the bytes of the next step (`bytes` of them) as they move; nil when nobody watches.
    func meter(upTo bytes: Int64) -> ByteMeter? {
        onProgress.map { ByteMeter(base: progress, limit: bytes, handler: $0) }
    }

    func remoteSize(_ path: VaultPath) -> Int64 {
        if case .live(_, _, let size)? = remote[path] { return size }
        return 0
    }

    func diskPath(_ path: VaultPath) -> String { scan.file(path)?.diskPath ?? path.rawValue }

    mutating func sort(_ action: SyncAction) {
        switch action {
        case .push(let path, let base):
            if let file = scan.file(path) { pushes.append(PushCandidate(path: path, diskPath: file.diskPath, hash: file.hash, sizeBytes: file.sizeBytes, base: base)) }
        case .keepLocalEditOverRemoteDelete(let path, let tombstone, let by):
            if let file = scan.file(path) {
                pushes.append(PushCandidate(path: path, diskPath: file.diskPath, hash: file.hash, sizeBytes: file.sizeBytes, base: tombstone))
                keptOverDelete[path] = by
            }
        case .pull(let path, _):
            pulls.append(path)
        case .restoreRemoteEditOverLocalDelete(let path, _):
            pulls.append(path)
            restores.insert(path)
        case .merge(let path, _, let base):
            merges.append((path, base))
        case .deleteLocal(let path, _):
            localDeletes.append(path)
        case .pushDelete(let path, let base):
            remoteDeletes.append((path, base))
        case .recordSynced(let path, let version, let hash):
            records[path] = SyncedEntry(hash: hash, version: version)
        case .forget(let path):
            forgets.append(path)
        case .skipInvalid:
            break
        }
    }
}

extension Array {
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: Swift.max(1, size)).map { self[$0..<Swift.min(count, $0 + size)] }
    }
}
