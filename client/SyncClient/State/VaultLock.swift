public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One sync at a time per vault, across processes: an exclusive `flock` on `.vaultsync/lock`, held
/// while the value lives. The kernel drops it if the process dies, so a crash never wedges a vault.
/// A second process waits for the first (bounded), so two `vaultsync sync` started together both
/// succeed, the second finding little or nothing left to do.
public final class VaultLock: @unchecked Sendable {
    // Only `deinit` touches `fd` after init: immutable otherwise, hence @unchecked Sendable.
    private let fd: Int32

    /// Takes the lock, waiting up to `timeout` while another process holds it.
    /// - Parameters:
    ///   - onWait: called once, when the lock is found held and waiting begins (the CLI says so).
    /// - Throws: ``VaultLockError/busy(waited:)`` when the lock is still held after `timeout`.
    public init(stateFolder: URL, timeout: Duration = .zero, onWait: @Sendable () -> Void = {}) async throws {
        let fd = try Self.openLockFile(stateFolder)
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var announced = false
        // Polled rather than a blocking flock: a blocked thread of the cooperative pool would stall
        // other tasks, and the timeout stays exact.
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, clock.now < deadline else {
                close(fd)
                throw VaultLockError.busy(waited: timeout)
            }
            if !announced {
                announced = true
                onWait()
            }
            do {
                try await Task.sleep(for: .milliseconds(100))
            } catch {
                close(fd)
                throw error
            }
        }
        self.fd = fd
    }

    /// Whether another process holds the lock now (a sync is running), without taking it.
    public static func isHeld(stateFolder: URL) -> Bool {
        guard let fd = try? openLockFile(stateFolder) else { return false }
        defer { close(fd) }
        // A shared lock conflicts only with the exclusive one a sync holds.
        guard flock(fd, LOCK_SH | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        flock(fd, LOCK_UN)
        return false
    }

    private static func openLockFile(_ stateFolder: URL) throws -> Int32 {
        try FileManager.default.createDirectory(at: stateFolder, withIntermediateDirectories: true)
        let fd = open(stateFolder.appendingPathComponent("lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return fd
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}

/// The vault is being synced by another process.
public enum VaultLockError: Error, Equatable, CustomStringConvertible {
    case busy(waited: Duration)
    public var description: String {
        switch self {
        case .busy(let waited) where waited == .zero: "another vaultsync process is syncing this vault"
        case .busy(let waited): "another vaultsync process has been syncing this vault for over \(waited.components.seconds) s; try again when it has finished"
        }
    }
}
