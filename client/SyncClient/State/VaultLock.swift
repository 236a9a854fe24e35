public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One sync at a time per vault, across processes: an exclusive `flock` on `.vaultsync/lock`, held
/// while the value lives. The kernel drops it if the process dies, so a crash never wedges a vault.
public final class VaultLock: @unchecked Sendable {
    // Only `deinit` touches `fd` after init: immutable otherwise, hence @unchecked Sendable.
    private let fd: Int32

    /// Takes the lock, or throws ``VaultLockError/busy`` at once when another sync holds it.
    public init(stateFolder: URL) throws {
        try FileManager.default.createDirectory(at: stateFolder, withIntermediateDirectories: true)
        let path = stateFolder.appendingPathComponent("lock").path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw VaultLockError.busy
        }
        self.fd = fd
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}

/// The vault is being synced by another process.
public enum VaultLockError: Error, Equatable, CustomStringConvertible {
    case busy
    public var description: String { "another vaultsync process is syncing this vault" }
}
