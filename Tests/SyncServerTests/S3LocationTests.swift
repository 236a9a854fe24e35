import Foundation
@testable import SyncServer
import TestSupport
import Testing

@Suite struct S3LocationTests {
    @Test func parsesProviderSpellings() throws {
        let aws = try S3Location(spec: "s3://my-notes?region=eu-west-1")
        #expect(aws.endpoint.absoluteString == "https://s3.eu-west-1.amazonaws.com")
        #expect(aws.pathStyle == false)
        #expect(aws.url(forKey: "vaults/a/bc/def").absoluteString == "https://my-notes.s3.eu-west-1.amazonaws.com/vaults/a/bc/def")

        let minio = try S3Location(spec: "s3://vaultsync?endpoint=http://minio.local:9000")
        #expect(minio.region == "us-east-1")
        #expect(minio.pathStyle)
        #expect(minio.url(forKey: "vaults/a/bc/def").absoluteString == "http://minio.local:9000/vaultsync/vaults/a/bc/def")

        let r2 = try S3Location(spec: "s3://notes?region=auto&endpoint=https://acct.r2.cloudflarestorage.com&path_style=false")
        #expect(r2.url(forKey: "k").absoluteString == "https://notes.acct.r2.cloudflarestorage.com/k")
    }

    @Test(arguments: [
        "s3://", "https://bucket", "s3://UPPER?region=x", "s3://b?endpoint=ftp://x", "s3://bucket?path_style=maybe", "s3://bucket?regoin=us-east-1",
    ])
    func rejectsBadSpecs(_ spec: String) {
        #expect(throws: ConfigurationError.self) { try S3Location(spec: spec) }
    }

    @Test func anS3StoreNeedsCredentials() async throws {
        await #expect(throws: ConfigurationError.self) {
            try await TestServer.with(configure: { $0.blobStore = "s3://bucket?endpoint=http://127.0.0.1:9" }) { _ in }
        }
    }
}
