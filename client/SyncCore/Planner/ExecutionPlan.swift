public import SyncProtocol

/// A file to send, as far as the order of sending goes.
public protocol SizedFile {
    var path: VaultPath { get }
    var sizeBytes: Int64 { get }
}

extension ExecutionPlan.Push: SizedFile {}

/// A ``SyncPlan`` sorted into the executor's work, with every decision taken: which paths wait
/// for the user, which files are over the account's size limit, what to tell the user. The
/// executor carries it out phase by phase and decides nothing (`SyncEngine+Apply.swift`).
public struct ExecutionPlan: Sendable, Equatable {
    /// A file to send, as the scan found it, on top of the server's version `base` (nil: none).
    public struct Push: Sendable, Equatable {
        public var path: VaultPath
        public var hash: ContentHash
        public var sizeBytes: Int64
        public var base: Int?
        /// An edit kept over another device's deletion: that device's name (nil when unknown).
        public var keptOverDeleteBy: String??

        public init(path: VaultPath, hash: ContentHash, sizeBytes: Int64, base: Int?, keptOverDeleteBy: String?? = .none) {
            (self.path, self.hash, self.sizeBytes, self.base, self.keptOverDeleteBy) = (path, hash, sizeBytes, base, keptOverDeleteBy)
        }
    }

    /// A file changed on both sides, merged against what this device last synced (nil: nothing).
    public struct Merge: Sendable, Equatable {
        public var path: VaultPath
        public var base: SyncedEntry?
        public init(path: VaultPath, base: SyncedEntry?) { (self.path, self.base) = (path, base) }
    }

    /// A deletion to send, of the version this device last saw.
    public struct RemoteDelete: Sendable, Equatable {
        public var path: VaultPath
        public var base: Int
        public init(path: VaultPath, base: Int) { (self.path, self.base) = (path, base) }
    }

    /// The largest file the account takes, and the size the server keeps of a file (larger in
    /// an encrypted vault: its ciphertext).
    public struct SizeLimit: Sendable {
        public var maxFileBytes: Int64
        public var storedSize: @Sendable (Int64) -> Int64

        public init(maxFileBytes: Int64, storedSize: @escaping @Sendable (Int64) -> Int64 = { $0 }) {
            self.maxFileBytes = maxFileBytes
            self.storedSize = storedSize
        }

        /// Why a file of `sizeBytes` is not sent, or nil when it fits.
        public func refusal(sizeBytes: Int64) -> String? {
            let stored = storedSize(sizeBytes)
            guard stored > maxFileBytes else { return nil }
            let size = stored == sizeBytes ? "\(sizeBytes) bytes" : "\(sizeBytes) bytes (\(stored) encrypted)"
            return "\(size) is more than this account's limit of \(maxFileBytes) bytes per file; not sent"
        }
    }

    public var records: [VaultPath: SyncedEntry] = [:]
    public var forgets: [VaultPath] = []
    public var pulls: [VaultPath] = []
    /// Pulls that bring back a file deleted here (reported once they arrive).
    public var restores: Set<VaultPath> = []
    public var localDeletes: [VaultPath] = []
    /// Unchanged local copies of files outside this device's folders: removed here only.
    public var leftOut: [VaultPath] = []
    public var merges: [Merge] = []
    public var remoteDeletes: [RemoteDelete] = []
    public var pushes: [Push] = []
    /// Files not sent, with why (over the account's size limit): failures of this run.
    public var notSent: [VaultPath: String] = [:]
    /// What to tell the user (names that cannot be synced, an edit kept over a deletion long ago).
    public var notices: [String] = []
    /// Nothing is sent, and the changes here stay pending (``unsent``): the account is a reader of
    /// a shared vault, or (``SendHold``) an encrypted vault's key awaits renewal.
    public var readOnly = false
    /// Changes made here that a read-only vault does not take.
    public var unsent: [VaultPath] = []

    public init() {}

    /// Sorts `plan` (made from `input`), leaving out the paths in `held` (conflicts and parked
    /// files wait for the user, held-back deletions for a confirmation). With `hold` (a reader; a
    /// key awaiting renewal) the pushes and deletions stay here, unsent; what the server changed
    /// still comes.
    public init(_ plan: SyncPlan, input: SyncPlanInput, holding held: Set<VaultPath> = [], sizeLimit: SizeLimit? = nil, hold: SendHold? = nil) {
        for action in plan.actions where !(action.path.map(held.contains) ?? false) {
            switch action {
            case .push(let path, let base):
                guard let file = input.local[path] else { continue }
                if base == nil, input.remoteIsIncremental == false, input.synced[path] != nil, input.remote[path] == nil {
                    notices.append("\(path): deleted on another device long ago (the server no longer keeps that deletion), edited here; the edited version was kept")
                }
                pushes.append(Push(path: path, hash: file.hash, sizeBytes: file.sizeBytes, base: base))
            case .keepLocalEditOverRemoteDelete(let path, let tombstone, let by):
                guard let file = input.local[path] else { continue }
                pushes.append(Push(path: path, hash: file.hash, sizeBytes: file.sizeBytes, base: tombstone, keptOverDeleteBy: .some(by)))
            case .pull(let path, _):
                pulls.append(path)
            case .restoreRemoteEditOverLocalDelete(let path, _):
                pulls.append(path)
                restores.insert(path)
            case .merge(let path, _, let base):
                merges.append(Merge(path: path, base: base))
            case .deleteLocal(let path, _):
                localDeletes.append(path)
            case .pushDelete(let path, let base):
                remoteDeletes.append(RemoteDelete(path: path, base: base))
            case .recordSynced(let path, let version, let hash):
                records[path] = SyncedEntry(hash: hash, version: version)
            case .forget(let path):
                forgets.append(path)
            case .skipInvalid(let name, let reason):
                notices.append("\(name): \(reason)")
            case .leaveOut(let path):
                leftOut.append(path)
            case .keepOutside(let path, let changed):
                notices.append(changed
                    ? "\(path): outside this device's folders (vaultsync folders), changed here since its last sync: kept here, not synced"
                    : "\(path): outside this device's folders (vaultsync folders): kept here, not synced")
            }
        }
        if let sizeLimit { leaveOut(over: sizeLimit) }
        if let hold { keepUnsent(hold) }
    }

    private mutating func keepUnsent(_ why: SendHold) {
        readOnly = true
        unsent = (pushes.map(\.path) + notSent.keys + remoteDeletes.map(\.path)).sorted()
        (pushes, remoteDeletes, notSent) = ([], [], [:])
        notices = notices.filter { !$0.contains("the edited version was kept") }
        if !unsent.isEmpty { notices.append(why == .reader ? Self.readOnlyNotice(unsent.count) : Self.keyRenewalNotice(unsent.count)) }
    }

    /// Why a device sends nothing this time.
    public enum SendHold: Sendable, Equatable {
        /// The account is a reader of the vault.
        case reader
        /// A member left an encrypted vault and its key is not renewed yet: what is sealed now
        /// would open with the keys they held.
        case keyRenewal
    }

    /// What a device holding its changes until an encrypted vault's key is renewed says.
    public static func keyRenewalNotice(_ count: Int) -> String {
        "a member left this encrypted vault and its key is not renewed yet: \(count) change\(count == 1 ? "" : "s") made here wait\(count == 1 ? "s" : "") on this device until the next sync of the owner's or an admin's device renews it"
    }

    /// What a reader is told about the changes their device keeps.
    public static func readOnlyNotice(_ count: Int) -> String {
        "you are a reader of this vault: \(count) change\(count == 1 ? "" : "s") made here stay\(count == 1 ? "s" : "") on this device, unsent (ask its owner or an admin for the writer role)"
    }

    /// Files over the account's limit are not sent: the server would refuse them.
    private mutating func leaveOut(over limit: SizeLimit) {
        pushes.removeAll { push in
            guard let refusal = limit.refusal(sizeBytes: push.sizeBytes) else { return false }
            notSent[push.path] = refusal
            return true
        }
    }

    /// The order to send a batch in after the server refused it as a whole for lack of space: one
    /// file at a time, smallest first, so that what fits still goes.
    public static func oneByOne<File: SizedFile>(_ batch: [File]) -> [File] {
        batch.sorted { ($0.sizeBytes, $0.path) < ($1.sizeBytes, $1.path) }
    }

    /// Files acted on, and bytes to move each way (`remoteSize`: a path's size on the server).
    public func totals(remoteSize: (VaultPath) -> Int64) -> (files: Int, bytes: Int64) {
        let pullBytes = (pulls + merges.map(\.path)).reduce(Int64(0)) { $0 + remoteSize($1) }
        return (pulls.count + localDeletes.count + merges.count + remoteDeletes.count + pushes.count, pullBytes + pushes.reduce(Int64(0)) { $0 + $1.sizeBytes })
    }
}

extension SyncAction {
    /// Whether carrying the action out sends a file's bytes (the account's size limit applies).
    public var sendsFile: Bool {
        switch self {
        case .push, .keepLocalEditOverRemoteDelete: true
        default: false
        }
    }
}
