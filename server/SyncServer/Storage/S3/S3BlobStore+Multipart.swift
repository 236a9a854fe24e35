import AsyncHTTPClient
import Crypto
package import Foundation
package import NIOCore
import NIOHTTP1
import SyncProtocol

/// S3 multipart uploads (CreateMultipartUpload with SHA-256 checksums, UploadPart, ListParts,
/// CompleteMultipartUpload, AbortMultipartUpload). Each part's presigned URL signs the header
/// `x-amz-checksum-sha256` with the part's hash, so the service refuses other bytes; the joined
/// object's SHA-256 is then checked by reading it once (``verify(_:)``), since S3 keeps only a
/// checksum of the parts' checksums for a multipart object. Abandoned uploads are aborted by the
/// purge when their session expires, and by the bucket lifecycle rule `docs/deployment.md`
/// recommends for anything else.
extension S3BlobStore {
    private func url(_ key: BlobKey, query: [(String, String)]) -> URL {
        var components = URLComponents(url: location.url(forKey: key.rawValue), resolvingAgainstBaseURL: false)!
        components.percentEncodedQuery = query.map { $0.1.isEmpty && $0.0 == "uploads" ? $0.0 : SigV4Signer.uriEncode($0.0) + "=" + SigV4Signer.uriEncode($0.1) }.joined(separator: "&")
        return components.url!
    }

    package func startMultipart(_ key: BlobKey, session: UUID) async throws -> String {
        let response = try await send(.POST, url: url(key, query: [("uploads", "")]), headers: ["x-amz-checksum-algorithm": "SHA256"])
        guard response.status.code == 200 else { throw try await S3Error(response, action: "CreateMultipartUpload \(key)") }
        let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
        guard let uploadID = Self.elements("UploadId", in: text).first, !uploadID.isEmpty else {
            throw S3Error(status: 200, code: "no UploadId in the answer", action: "CreateMultipartUpload \(key)")
        }
        return uploadID
    }

    package func partUpload(_ key: BlobKey, session: UUID, uploadID: String, part: BlobPart, expiresAt: Date) throws -> BlobUpload {
        let headers = ["x-amz-checksum-sha256": Data(part.sha256).base64EncodedString()]
        let target = url(key, query: [("partNumber", String(part.number)), ("uploadId", uploadID)])
        return BlobUpload(url: signer.presign(method: "PUT", url: target, headers: headers, expires: expiry(expiresAt), date: now()), headers: headers)
    }

    package func writePart<Body: AsyncSequence & Sendable>(_ body: Body, key: BlobKey, uploadID: String, part: BlobPart) async throws where Body.Element == ByteBuffer {
        let target = url(key, query: [("partNumber", String(part.number)), ("uploadId", uploadID)])
        let checked = CheckedBytes(base: body, limit: part.sizeBytes)
        let headers = ["x-amz-checksum-sha256": Data(part.sha256).base64EncodedString(), "content-length": String(part.sizeBytes)]
        let response: HTTPClientResponse
        do {
            response = try await send(.PUT, url: target, headers: headers, payloadHash: SigV4Signer.unsignedPayload, body: .stream(checked, length: .known(part.sizeBytes)))
        } catch let error as ServiceError {
            throw error
        } catch where checked.received < part.sizeBytes {
            throw ServiceError.contentMismatch("part \(part.number) ended after \(checked.received) of its \(part.sizeBytes) bytes")
        }
        switch response.status.code {
        case 200: break
        case 404: throw ServiceError.notFound("no such upload session (it was completed or aborted)")
        case 400: throw ServiceError.contentMismatch("the store refused part \(part.number): \(try await S3Error(response, action: "UploadPart").code)")
        default: throw try await S3Error(response, action: "UploadPart \(key) #\(part.number)")
        }
        // A store that ignores checksums (moto does) kept bytes known to be wrong, and a part cannot
        // be removed alone: the upload is discarded, and the next start begins a new one.
        guard checked.result.count == part.sizeBytes, checked.result.hash.hex == Hex.encode(part.sha256) else {
            try? await abortMultipart(key, uploadID: uploadID)
            throw ServiceError.contentMismatch("part \(part.number) does not hash to the SHA-256 its URL was signed for; the upload was discarded: start it again")
        }
    }

    package func storedParts(_ key: BlobKey, uploadID: String) async throws -> [Int: Int64]? {
        try await listParts(key, uploadID: uploadID).map { parts in parts.mapValues(\.size) }
    }

    /// ListParts, all pages: number → size, ETag, checksum and when it arrived (nil: no such upload).
    func listParts(_ key: BlobKey, uploadID: String) async throws -> [Int: (size: Int64, etag: String, checksum: String?, modified: String?)]? {
        var parts: [Int: (size: Int64, etag: String, checksum: String?, modified: String?)] = [:]
        var marker: String?
        repeat {
            var query = [("uploadId", uploadID)]
            if let marker { query.append(("part-number-marker", marker)) }
            let response = try await send(.GET, url: url(key, query: query))
            if response.status.code == 404 { return nil }
            guard response.status.code == 200 else { throw try await S3Error(response, action: "ListParts \(key)") }
            let text = String(buffer: try await response.body.collect(upTo: 16 << 20))
            for block in Self.elements("Part", in: text) {
                guard let number = Self.elements("PartNumber", in: block).first.flatMap({ Int($0) }),
                    let size = Self.elements("Size", in: block).first.flatMap({ Int64($0) }),
                    let etag = Self.elements("ETag", in: block).first
                else { continue }
                parts[number] = (
                    size, etag.replacingOccurrences(of: "&quot;", with: "\""), Self.elements("ChecksumSHA256", in: block).first,
                    Self.elements("LastModified", in: block).first
                )
            }
            marker = Self.elements("IsTruncated", in: text).first == "true" ? Self.elements("NextPartNumberMarker", in: text).first : nil
        } while marker != nil
        return parts
    }

    package func completeMultipart(_ key: BlobKey, uploadID: String, sizeBytes: Int64, partCount: Int) async throws {
        guard let parts = try await listParts(key, uploadID: uploadID) else { throw ServiceError.notFound("no such upload session (it was completed or aborted)") }
        let missing = BlobPart.missing(partCount, stored: parts.mapValues(\.size))
        guard missing.isEmpty else { throw ServiceError.uploadMissing(FileBlobStore.missingText(missing, of: partCount)) }
        var body = "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        for number in 1...partCount {
            let part = parts[number]!
            body += "<Part><PartNumber>\(number)</PartNumber><ETag>\(Markup.escape(part.etag))</ETag>"
            if let checksum = part.checksum { body += "<ChecksumSHA256>\(checksum)</ChecksumSHA256>" }
            body += "</Part>"
        }
        body += "</CompleteMultipartUpload>"
        let bytes = Array(body.utf8)
        let response = try await send(
            .POST, url: url(key, query: [("uploadId", uploadID)]), headers: ["content-length": String(bytes.count)],
            payloadHash: Hex.encode(SHA256.hash(data: bytes)), body: .bytes(ByteBuffer(bytes: bytes)), timeout: .minutes(15))
        // S3 may answer 200 and report the failure in the body.
        let answer = String(buffer: try await response.body.collect(upTo: 1 << 20))
        guard response.status.code == 200, !answer.contains("<Error>") else {
            let code = Self.elements("Code", in: answer).first ?? "HTTP \(response.status.code)"
            if code == "EntityTooSmall" || code == "InvalidPart" || code == "InvalidPartOrder" {
                throw ServiceError.contentMismatch("the store refused to join the parts: \(code)")
            }
            throw S3Error(status: response.status.code, code: code, action: "CompleteMultipartUpload \(key)")
        }
        switch try await verify(key, trustingStoredChecksum: false) {
        case .verified(let size) where size == sizeBytes: return
        case .verified(let size):
            try? await delete(key)
            throw ServiceError.contentMismatch("the parts join to \(size) bytes, not the \(sizeBytes) declared at push")
        case .mismatch(let why): throw ServiceError.contentMismatch(why)
        case nil: throw ServiceError.uploadMissing("the store did not keep the joined object; upload it again")
        }
    }

    package func abortMultipart(_ key: BlobKey, uploadID: String) async throws {
        let response = try await send(.DELETE, url: url(key, query: [("uploadId", uploadID)]))
        guard [200, 204, 404].contains(response.status.code) else { throw try await S3Error(response, action: "AbortMultipartUpload \(key)") }
    }

    /// The texts of every `<name>…</name>` in `xml` (S3's answers are flat enough for this).
    static func elements(_ name: String, in xml: String) -> [String] {
        var found: [String] = []
        var rest = Substring(xml)
        while let open = rest.range(of: "<\(name)>"), let close = rest[open.upperBound...].range(of: "</\(name)>") {
            found.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return found
    }
}
