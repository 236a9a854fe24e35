import Foundation
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// What only the S3 backends do: presigned uploads are bound to the declared hash, the proxy
/// refuses bytes that do not match it, and proxied URLs need the owner's token.
@Suite struct S3StoreTests {
    /// The presigned PUT signs `x-amz-checksum-sha256`: S3, R2 and MinIO refuse a body with another
    /// hash (and a request without that header fails the signature). moto stores the header without
    /// checking it, so the refusal itself is S3's; what is ours, the binding, is checked here.
    @Test func presignedUploadsAreBoundToTheDeclaredHash() async throws {
        try await TestServer.with(configure: try await BlobBackend.s3Presigned.configuration()) { server in
            let device = try await server.newUser().newDevice()
            let bytes = Data("bound".utf8)
            let push = try await device.api.push(PushRequest(files: [PushFile(path: try VaultPath("b.md"), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: nil)]), session: device.session)
            let upload = try #require(push.uploads.first)
            let checksum = try #require(upload.uploadHeaders?["x-amz-checksum-sha256"])
            #expect(Data(base64Encoded: checksum).map { ContentHash(digest: $0) } == ContentHasher.hash(bytes))
            let url = try #require(upload.uploadURL)
            let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            #expect(query.first { $0.name == "X-Amz-SignedHeaders" }?.value == "host;x-amz-checksum-sha256")
            // Bytes go to the store, not through the server.
            #expect(url.port != server.baseURL.port)
        }
    }

    @Test func theProxyRefusesWrongBytesAndStoresNothing() async throws {
        let backend = BlobBackend.s3Proxied
        try await TestServer.with(configure: try await backend.configuration()) { server in
            let device = try await server.newUser().newDevice()
            let declared = Data("the declared content".utf8)
            let push = try await device.api.push(PushRequest(files: [PushFile(path: try VaultPath("n.md"), contentHash: ContentHasher.hash(declared), sizeBytes: Int64(declared.count), baseVersion: nil)]), session: device.session)
            let upload = try #require(push.uploads.first)
            let forged = Data("THE DECLARED CONTENT".utf8)
            await #expect {
                try await device.api.uploadBlob(forged, to: try #require(upload.uploadURL), headers: upload.uploadHeaders ?? [:], session: device.session)
            } throws: { ($0 as? SyncAPIError)?.code == .contentMismatch }
            let confirm = try await device.api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: upload.path, version: 1)]), session: device.session)
            #expect(confirm.confirmed.isEmpty)
            #expect(confirm.failed.map(\.code) == [.uploadMissing])
            // The right bytes still go through.
            try await device.api.uploadBlob(declared, to: try #require(upload.uploadURL), headers: upload.uploadHeaders ?? [:], session: device.session)
            let done = try await device.api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: upload.path, version: 1)]), session: device.session)
            #expect(done.confirmed.map(\.version) == [1])
            #expect(try await device.read("n.md") == "the declared content")
        }
    }

    @Test func proxiedURLsPointAtTheServerAndNeedTheOwnersToken() async throws {
        try await TestServer.with(configure: try await BlobBackend.s3Proxied.configuration()) { server in
            let device = try await server.newUser().newDevice()
            let bytes = Data("proxied".utf8)
            let push = try await device.api.push(PushRequest(files: [PushFile(path: try VaultPath("p.md"), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: nil)]), session: device.session)
            let url = try #require(push.uploads.first?.uploadURL)
            #expect(url.host == server.baseURL.host && url.port == server.baseURL.port)
            let anonymous = try await RawHTTP.send("PUT", url, body: bytes, protocolVersion: nil)
            #expect(anonymous.status == 401)
            #expect(anonymous.code == .unauthorized)
            let stranger = try await server.newUser()
            let foreign = try await RawHTTP.send("PUT", url, body: bytes, headers: ["Authorization": "Bearer \(stranger.tokens.accessToken)"], protocolVersion: nil)
            #expect(foreign.status == 403)
            try await device.api.uploadBlob(bytes, to: url, session: device.session)
            #expect(try await device.api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: try VaultPath("p.md"), version: 1)]), session: device.session).confirmed.count == 1)
        }
    }
}

/// Confirm never trusts the store to have enforced the checksum a presigned URL carries.
@Suite struct S3ConfirmVerificationTests {
    /// moto, like some S3-compatible services, stores whatever bytes arrive at a presigned URL and
    /// keeps no checksum for them: confirm must read them back and refuse them, leaving the
    /// reservation open so that the right bytes can still be uploaded and confirmed.
    @Test func wrongBytesAtAPresignedURLNeverBecomeAVersion() async throws {
        try await TestServer.with(configure: try await BlobBackend.s3Presigned.configuration()) { server in
            let device = try await server.newUser().newDevice()
            let declared = Data("the declared content".utf8)
            let push = try await device.api.push(PushRequest(files: [PushFile(path: try VaultPath("n.md"), contentHash: ContentHasher.hash(declared), sizeBytes: Int64(declared.count), baseVersion: nil)]), session: device.session)
            let upload = try #require(push.uploads.first)
            let url = try #require(upload.uploadURL)
            // Same length, other bytes: only the hash can tell.
            try await device.api.uploadBlob(Data("THE DECLARED CONTENT".utf8), to: url, headers: upload.uploadHeaders ?? [:])
            let refused = try await device.api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: upload.path, version: 1)]), session: device.session)
            #expect(refused.confirmed.isEmpty)
            #expect(refused.failed.map(\.code) == [.contentMismatch])
            #expect(try await device.allChanges().files.isEmpty, "no version names the wrong bytes")
            // The reservation is still open: the right bytes go through the same URL.
            try await device.api.uploadBlob(declared, to: url, headers: upload.uploadHeaders ?? [:])
            let done = try await device.api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: upload.path, version: 1)]), session: device.session)
            #expect(done.confirmed.map(\.version) == [1])
            #expect(try await device.read("n.md") == "the declared content")
        }
    }
}
