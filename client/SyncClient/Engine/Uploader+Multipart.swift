import Foundation
import SyncProtocol

/// Large files go up in parts: a session on the server (found again after a crash, with the parts
/// the store holds), each part hashed, sent to a URL bound to that hash, and recorded in `sync.db`
/// once accepted; then the server joins them and checks the whole file's hash. A sync killed at
/// any point sends only the missing parts next time. `meter` hears of each part as it is accepted
/// (and of the parts the store held already), so progress moves part by part.
extension Uploader {
    func uploadInParts(_ file: PushCandidate, meter: ByteMeter? = nil) async throws {
        guard case .file(let disk)? = file.bytes(in: root) else { throw SyncFileError.noUploadURL }
        // In an encrypted vault this is the staged ciphertext: a new one for every sync, so an
        // upload cut off starts over with the next sync's (its old session expires on the server).
        // A session recorded for these bytes keeps its part size (the server keeps it anyway).
        let recorded = try await store.multipartUpload(for: file.wireHash)
        let partSize = recorded.flatMap { $0.sizeBytes == file.wireSize ? $0.partSize : nil }
            ?? MultipartRules.partSize(preferred: transfers.partSize, fileSize: file.wireSize)
        let request = StartUploadRequest(contentHash: file.wireHash, sizeBytes: file.wireSize, partSize: partSize)
        var attempts = 0
        while true {
            attempts += 1
            let upload = try await session.run { [api] in try await api.startUpload(request, session: $0) }
            try await store.recordMultipartUpload(upload)
            let stored = Set(upload.storedParts)
            if attempts == 1 { meter?.add(stored.reduce(0) { $0 + upload.range(ofPart: $1).sizeBytes }) }
            try await sendParts((1...upload.partCount).filter { !stored.contains($0) }, of: upload, from: disk, meter: meter)
            do {
                _ = try await session.run { [api] in try await api.completeUpload(upload.uploadID, session: $0) }
                try await store.forgetMultipartUpload(for: file.wireHash)
                return
            } catch let error as SyncAPIError where error.code == .uploadMissing && attempts < 2 {
                continue  // the store lost a part: the session's list of stored parts says which
            } catch let error as SyncAPIError where error.code == .contentMismatch || error.code == .notFound {
                try await store.forgetMultipartUpload(for: file.wireHash)  // the session ended: the next sync starts afresh
                throw error
            }
        }
    }

    /// Sends `numbers`, ``TransferSettings/parallelTransfers`` at a time; stops at the first failure.
    private func sendParts(_ numbers: [Int], of upload: UploadSession, from disk: URL, meter: ByteMeter?) async throws {
        let (api, session, store, limit) = (api, session, store, transfers.parallelTransfers)
        try await withThrowingTaskGroup(of: Void.self) { group in
            var pending = numbers.makeIterator()
            func next() -> Bool {
                guard let number = pending.next() else { return false }
                group.addTask {
                    let range = upload.range(ofPart: number)
                    let bytes = range.offset..<(range.offset + range.sizeBytes)
                    let sha = try FileHashing.hash(fileAt: disk.path, range: bytes).hex
                    let answer = try await session.run { try await api.uploadParts(upload.uploadID, UploadPartsRequest(parts: [PartChecksum(number: number, sha256: String(sha))]), session: $0) }
                    guard let target = answer.parts.first(where: { $0.number == number }) else { throw SyncFileError.noUploadURL }
                    try await api.uploadBlob(file: disk, range: bytes, to: target.uploadURL, headers: target.uploadHeaders ?? [:], session: await session.vaultSession)
                    try await store.recordPartDone(uploadID: upload.uploadID, number: number)
                    meter?.add(range.sizeBytes)
                }
                return true
            }
            for _ in 0..<limit where !next() { break }
            while try await group.next() != nil { _ = next() }
        }
    }
}
