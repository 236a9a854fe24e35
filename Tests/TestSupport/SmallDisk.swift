public import Foundation
import SyncServer

#if canImport(Glibc)
import Glibc
#endif

/// A folder that runs out of space on demand, for a file blob store. Where this process may mount
/// one it is a small tmpfs, filled with a filler file until the kernel answers ENOSPC; otherwise
/// the store's writes under it fail with an injected ENOSPC (``FileStoreFaults``). Either way the
/// store's real write path meets the error.
public final class SmallDisk: Sendable {
    public let folder: URL
    /// Whether the disk is a real tmpfs (else the failure is injected).
    public let isReal: Bool
    private var filler: URL { folder.appendingPathComponent("filler") }

    /// Makes a folder of `bytes` capacity (a tmpfs when mounting is allowed).
    public init(bytes: Int = 2 << 20) throws {
        folder = URL(fileURLWithPath: "/tmp/vaultsync-disk-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        isReal = ChildProcessRunner.succeeds("/bin/mount", ["-t", "tmpfs", "-o", "size=\(bytes)", "tmpfs", folder.path])
        ExitWatchdog.run("umount -l '\(folder.path)' 2>/dev/null; rm -rf '\(folder.path)'")
    }

    /// The blob store setting for a file store in this folder.
    public var blobStoreSpec: String { "file://\(folder.appendingPathComponent("blobs").path)" }

    /// Uses up the space: further writes fail with ENOSPC.
    public func fill() throws {
        guard isReal else {
            FileStoreFaults.failWrites(under: folder.appendingPathComponent("blobs").path, with: .ENOSPC)
            return
        }
        let fd = open(filler.path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let written = chunk.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
            if written > 0 { continue }
            if errno == ENOSPC { return }
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    /// Frees the space again.
    public func free() {
        if isReal {
            unlink(filler.path)
        } else {
            FileStoreFaults.failWrites(under: folder.appendingPathComponent("blobs").path, with: nil)
        }
    }

    /// Unmounts and removes the folder.
    public func remove() {
        free()
        if isReal { _ = ChildProcessRunner.succeeds("/bin/umount", ["-l", folder.path]) }
        try? FileManager.default.removeItem(at: folder)
    }

    /// The temporary files the blob store has left in its folder.
    public var temporaryFiles: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("blobs/tmp").path)) ?? []
    }
}

/// Runs a short system command, for setup that may not be permitted here.
enum ChildProcessRunner {
    static func succeeds(_ path: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
