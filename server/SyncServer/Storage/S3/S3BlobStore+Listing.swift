import AsyncHTTPClient
package import Foundation
import NIOCore
import NIOHTTP1

/// Listing an S3 bucket for `blobs gc`: ListObjectsV2 pages under `vaults/` (1,000 keys each,
/// continued after the last key) and ListMultipartUploads (with ListParts for each upload's
/// newest part).
extension S3BlobStore {
    private func bucketURL(_ query: [(String, String)]) -> URL {
        var components = URLComponents(url: location.url(forKey: ""), resolvingAgainstBaseURL: false)!
        components.percentEncodedQuery = query.sorted { $0.0 < $1.0 }
            .map { $0.1.isEmpty ? SigV4Signer.uriEncode($0.0) : SigV4Signer.uriEncode($0.0) + "=" + SigV4Signer.uriEncode($0.1) }
            .joined(separator: "&")
        return components.url!
    }

    package func listBlobs(after: String?, limit: Int) async throws -> StoreListingPage {
        var query = [("list-type", "2"), ("prefix", "vaults/"), ("max-keys", String(min(max(limit, 1), 1000)))]
        if let after { query.append(("start-after", after)) }
        let response = try await send(.GET, url: bucketURL(query))
        guard response.status.code == 200 else { throw try await S3Error(response, action: "ListObjectsV2") }
        let text = String(buffer: try await response.body.collect(upTo: 32 << 20))
        var page = StoreListingPage(blobs: [], strays: [], next: nil)
        var last: String?
        for object in Self.elements("Contents", in: text) {
            guard let name = Self.elements("Key", in: object).first.map(Self.unescaped) else { continue }
            last = name
            let parts = name.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 4, let key = BlobKey(vault: String(parts[1]), prefix: String(parts[2]), hex: String(parts[3])),
                let size = Self.elements("Size", in: object).first.flatMap({ Int64($0) }),
                let modified = Self.elements("LastModified", in: object).first.flatMap(Self.timestamp)
            else {
                page.strays.append(name)
                continue
            }
            page.blobs.append(StoredBlob(key: key, sizeBytes: size, modifiedAt: modified))
        }
        if Self.elements("IsTruncated", in: text).first == "true" { page.next = last }
        return page
    }

    package func listUploads() async throws -> [StoredUpload] {
        var uploads: [StoredUpload] = []
        var markers: (key: String, id: String)?
        repeat {
            var query = [("uploads", ""), ("prefix", "vaults/")]
            if let markers { query += [("key-marker", markers.key), ("upload-id-marker", markers.id)] }
            let response = try await send(.GET, url: bucketURL(query))
            guard response.status.code == 200 else { throw try await S3Error(response, action: "ListMultipartUploads") }
            let text = String(buffer: try await response.body.collect(upTo: 32 << 20))
            for upload in Self.elements("Upload", in: text) {
                guard let id = Self.elements("UploadId", in: upload).first, let name = Self.elements("Key", in: upload).first.map(Self.unescaped),
                    let started = Self.elements("Initiated", in: upload).first.flatMap(Self.timestamp)
                else { continue }
                let parts = name.split(separator: "/", omittingEmptySubsequences: false)
                let key = parts.count == 4 ? BlobKey(vault: String(parts[1]), prefix: String(parts[2]), hex: String(parts[3])) : nil
                // Active at its newest part, if later than its start (an upload days old may still
                // be receiving parts; and moto reports one fixed start time for every upload).
                var active = started
                if let key, let listed = try await listParts(key, uploadID: id) {
                    active = max(active, listed.values.compactMap { $0.modified.flatMap(Self.timestamp) }.max() ?? active)
                }
                uploads.append(StoredUpload(uploadID: id, key: key, activeAt: active))
            }
            let truncated = Self.elements("IsTruncated", in: text).first == "true"
            let nextKey = Self.elements("NextKeyMarker", in: text).first, nextID = Self.elements("NextUploadIdMarker", in: text).first
            markers = truncated ? nextKey.map { ($0, nextID ?? "") } : nil
        } while markers != nil
        return uploads
    }

    package func abortListed(_ upload: StoredUpload) async throws {
        guard let key = upload.key else { return }  // not a blob's upload: not this server's to abort
        try await abortMultipart(key, uploadID: upload.uploadID)
    }

    private static func unescaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
    }

    /// S3's ISO 8601 times, with or without fractional seconds.
    private static func timestamp(_ text: String) -> Date? {
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text) ?? ISO8601DateFormatter().date(from: text)
    }
}
