import Foundation
import NIOCore
import NIOPosix
import SyncProtocol

/// A `PUT`'s body written to a file while it is hashed and counted: the blob store needs the hash
/// before it takes bytes, and the body arrives before it is known. Memory stays flat for any size;
/// the file goes when the request ends.
struct SpooledBody: Sendable {
    let file: URL
    let hash: ContentHash
    let sizeBytes: Int64
    /// A note's text for search (``NoteText``), read as the body came; nil for another file.
    var text: NoteText? = nil

    /// The texts the write gate is handed for this body (by hash): none for an encrypted vault.
    func texts(_ scope: VaultScope) -> [String: NoteText] {
        guard let text, !scope.encrypted else { return [:] }
        return [hash.rawValue: text]
    }

    /// Writes `body` to a new file in `folder`, refusing it past `limit` bytes.
    /// - Throws: ``ServiceError/fileTooLarge(path:size:limit:)`` past the limit (the file is removed).
    static func spool<Body: AsyncSequence>(_ body: Body, in folder: URL, path: VaultPath, limit: Int64, io: NIOThreadPool) async throws -> SpooledBody
    where Body.Element == ByteBuffer {
        let file = folder.appendingPathComponent("put-\(UUID().uuidString)")
        let handle: FileHandle
        do {
            guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            handle = try FileHandle(forWritingTo: file)
        } catch {
            throw ServiceError.server(.spoolFailed(lost: false, ErrorCause("creating \(file.path)", error)))
        }
        var hasher = ContentHasher()
        var size: Int64 = 0
        // What search reads of a note: its start, and one byte to tell it was cut.
        var head: Data? = WebApp.isNote(path.rawValue) ? Data() : nil
        do {
            for try await chunk in body {
                size += Int64(chunk.readableBytes)
                guard size <= limit else { throw ServiceError.fileTooLarge(path: path, size: size, limit: limit) }
                chunk.withUnsafeReadableBytes { hasher.update($0) }
                let bytes = Data(chunk.readableBytesView)
                if let held = head?.count, held <= NoteText.indexedBytes { head?.append(bytes.prefix(NoteText.indexedBytes + 1 - held)) }
                try await io.runIfActive { try handle.write(contentsOf: bytes) }
            }
            try handle.close()
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(at: file)
            throw error
        }
        return SpooledBody(file: file, hash: hasher.finalize(), sizeBytes: size, text: head.map(NoteText.init))
    }

    /// The file's bytes, read on the I/O threads.
    func chunks(io: NIOThreadPool) async throws -> FileChunks {
        guard let open = try await OpenFile.open(file.path, io: io) else {
            throw ServiceError.server(.spoolFailed(lost: true, ErrorCause("\(file.path) is gone")))
        }
        return FileChunks(file: open, io: io)
    }

    func remove() { try? FileManager.default.removeItem(at: file) }

    /// This process's spool, `folder/HOST-PID`, empty; made at start. What processes of this host
    /// that are gone left in theirs is removed (cut-off requests), while other instances sharing
    /// the data folder keep theirs: on this host only running ones, on other hosts all.
    static func prepare(_ folder: URL, host: String = ProcessInfo.processInfo.hostName, processID: Int32 = getpid()) throws -> URL {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            guard name.hasPrefix(host + "-"), let pid = Int32(name.dropFirst(host.count + 1)) else { continue }
            if pid == processID || (kill(pid, 0) != 0 && errno == ESRCH) { try? FileManager.default.removeItem(at: folder.appendingPathComponent(name)) }
        }
        let own = folder.appendingPathComponent("\(host)-\(processID)")
        try FileManager.default.createDirectory(at: own, withIntermediateDirectories: true)
        return own
    }
}
