public import Foundation
import SyncProtocol

#if canImport(Glibc)
import Glibc
#endif

/// What a running `vaultsync watch` says about itself in `.vaultsync/watcher.json`, for
/// `vaultsync status`. It counts only while the watcher holds `.vaultsync/watcher.lock` (a killed
/// watcher's lock goes with it; its record stays behind, stale).
public struct WatcherRecord: Codable, Sendable, Equatable {
    public var pid: Int32
    public var startedAt: Date
    /// Whether the change feed is connected (false: offline, changes queue locally).
    public var connected: Bool
    public var lastSyncAt: Date?
    /// The status word of the last sync.
    public var lastSyncStatus: String?
    /// Local changes waiting for the next sync (written when the first arrives and at each sync).
    public var pendingChanges: Int

    enum CodingKeys: String, CodingKey {
        case pid, connected
        case startedAt = "started_at"
        case lastSyncAt = "last_sync_at"
        case lastSyncStatus = "last_sync_status"
        case pendingChanges = "pending_changes"
    }

    static func file(_ stateFolder: URL) -> URL { stateFolder.appendingPathComponent("watcher.json") }
    static func lockFile(_ stateFolder: URL) -> URL { stateFolder.appendingPathComponent("watcher.lock") }

    /// The running watcher's record, or nil when no watcher runs for the vault.
    public static func running(stateFolder: URL) -> WatcherRecord? {
        let fd = open(lockFile(stateFolder).path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard flock(fd, LOCK_SH | LOCK_NB) != 0, errno == EWOULDBLOCK else {
            flock(fd, LOCK_UN)
            return nil
        }
        guard let data = try? Data(contentsOf: file(stateFolder)) else { return nil }
        return try? WireCoding.decoder().decode(WatcherRecord.self, from: data)
    }

    func save(stateFolder: URL) throws {
        try WireCoding.encoder().encode(self).write(to: Self.file(stateFolder), options: .atomic)
    }
}

/// Holds `.vaultsync/watcher.lock` for a watcher's lifetime: one watcher per vault.
final class WatcherLock: Sendable {
    private let fd: Int32

    /// - Throws: ``WatchError/alreadyWatching(_:)`` when another watcher holds it.
    init(stateFolder: URL) throws {
        try FileManager.default.createDirectory(at: stateFolder, withIntermediateDirectories: true)
        let fd = open(WatcherRecord.lockFile(stateFolder).path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            let other = (try? Data(contentsOf: WatcherRecord.file(stateFolder))).flatMap { try? WireCoding.decoder().decode(WatcherRecord.self, from: $0) }
            throw WatchError.alreadyWatching(other?.pid)
        }
        self.fd = fd
    }

    deinit { close(fd) }
}

/// Why a watcher could not start.
public enum WatchError: Error, CustomStringConvertible {
    case alreadyWatching(Int32?)
    /// The server no longer accepts the device's session (the vault at this path; the server's
    /// reason, when it gave one): sign in again.
    case sessionRefused(String, reason: String? = nil)

    public var description: String {
        switch self {
        case .alreadyWatching(let pid): "another 'vaultsync watch' already watches this vault\(pid.map { " (pid \($0))" } ?? "")"
        case .sessionRefused(let path, let reason):
            "the server no longer accepts this device's session\(reason.map { " (\($0))" } ?? ""): run 'vaultsync login \(path)', then watch again"
        }
    }
}
