import Foundation
@testable import SyncServer
import Testing

/// The SigV4 signer against AWS's published examples and against botocore for the inputs the S3
/// store signs (Fixtures/sigv4_botocore.json, made once by Fixtures/generate_sigv4.py).
@Suite struct SigV4SignerTests {
    static let exampleCredentials = S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    static let may24 = Date(timeIntervalSince1970: 1_369_353_600)  // 2013-05-24T00:00:00Z

    /// "Authenticating Requests: Using Query Parameters (AWS Signature Version 4)", example presigned GET.
    @Test func awsPublishedPresignedURLExample() {
        let signer = SigV4Signer(credentials: Self.exampleCredentials, region: "us-east-1")
        let url = signer.presign(method: "GET", url: URL(string: "https://examplebucket.s3.amazonaws.com/test.txt")!, expires: 86400, date: Self.may24)
        #expect(url.absoluteString == "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
    }

    /// "Authenticating Requests: Using the Authorization Header", example GET Object with a Range header.
    @Test func awsPublishedHeaderExample() {
        let signer = SigV4Signer(credentials: Self.exampleCredentials, region: "us-east-1")
        let headers = signer.authorizationHeaders(
            method: "GET", url: URL(string: "https://examplebucket.s3.amazonaws.com/test.txt")!, headers: ["Range": "bytes=0-9"],
            payloadHash: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", date: Self.may24)
        #expect(headers["Authorization"] == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(headers["X-Amz-Date"] == "20130524T000000Z")
    }

    struct Fixture: Decodable {
        struct Presigned: Decodable {
            let method: String
            let url: String
            let headers: [String: String]
            let expires: Int
            let region: String
            let session_token: String?
            let presigned_url: String
        }
        struct Signed: Decodable {
            let method: String
            let url: String
            let payload_hash: String
            let region: String
            let authorization: String
            let x_amz_date: String
        }
        let access_key_id: String
        let secret_access_key: String
        let presigned: [Presigned]
        let signed: [Signed]
    }

    static func fixture() throws -> Fixture {
        let url = try #require(Bundle.module.url(forResource: "sigv4_botocore", withExtension: "json", subdirectory: "Fixtures"))
        return try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
    }

    static let march24 = Date(timeIntervalSince1970: 1_774_348_200)  // 2026-03-24T10:30:00Z, the fixture's time

    @Test func presignedURLsMatchBotocore() throws {
        let fixture = try Self.fixture()
        #expect(fixture.presigned.count == 5)
        for case_ in fixture.presigned {
            let credentials = S3Credentials(accessKeyID: fixture.access_key_id, secretAccessKey: fixture.secret_access_key, sessionToken: case_.session_token)
            let signer = SigV4Signer(credentials: credentials, region: case_.region)
            let url = signer.presign(method: case_.method, url: URL(string: case_.url)!, headers: case_.headers, expires: case_.expires, date: Self.march24)
            // Same URL up to the order of query parameters (botocore appends the session token last).
            let ours = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
            let theirs = try #require(URLComponents(string: case_.presigned_url))
            #expect(ours.percentEncodedPath == theirs.percentEncodedPath, "\(case_.url)")
            #expect(ours.host == theirs.host && ours.port == theirs.port && ours.scheme == theirs.scheme)
            #expect(Set(ours.percentEncodedQuery!.split(separator: "&")) == Set(theirs.percentEncodedQuery!.split(separator: "&")), "\(case_.method) \(case_.url)")
            #expect(ours.percentEncodedQuery!.hasSuffix(theirs.percentEncodedQuery!.split(separator: "&").last.map(String.init)!))
        }
    }

    @Test func authorizationHeadersMatchBotocore() throws {
        let fixture = try Self.fixture()
        for case_ in fixture.signed {
            let signer = SigV4Signer(credentials: S3Credentials(accessKeyID: fixture.access_key_id, secretAccessKey: fixture.secret_access_key), region: case_.region)
            let headers = signer.authorizationHeaders(method: case_.method, url: URL(string: case_.url)!, payloadHash: case_.payload_hash, date: Self.march24)
            #expect(headers["Authorization"] == case_.authorization, "\(case_.method) \(case_.url)")
            #expect(headers["X-Amz-Date"] == case_.x_amz_date)
        }
    }

    @Test func changingAnyInputChangesTheSignature() {
        let signer = SigV4Signer(credentials: Self.exampleCredentials, region: "us-east-1")
        let base = URL(string: "https://b.s3.amazonaws.com/k")!
        let reference = signer.presign(method: "PUT", url: base, headers: ["x-amz-checksum-sha256": "AAAA"], expires: 60, date: Self.may24)
        let variants = [
            signer.presign(method: "GET", url: base, headers: ["x-amz-checksum-sha256": "AAAA"], expires: 60, date: Self.may24),
            signer.presign(method: "PUT", url: URL(string: "https://b.s3.amazonaws.com/k2")!, headers: ["x-amz-checksum-sha256": "AAAA"], expires: 60, date: Self.may24),
            signer.presign(method: "PUT", url: base, headers: ["x-amz-checksum-sha256": "AAAB"], expires: 60, date: Self.may24),
            signer.presign(method: "PUT", url: base, headers: ["x-amz-checksum-sha256": "AAAA"], expires: 61, date: Self.may24),
            SigV4Signer(credentials: Self.exampleCredentials, region: "eu-west-1").presign(method: "PUT", url: base, headers: ["x-amz-checksum-sha256": "AAAA"], expires: 60, date: Self.may24),
        ]
        func signature(_ url: URL) -> String? { URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "X-Amz-Signature" }?.value }
        for variant in variants { #expect(signature(variant) != signature(reference)) }
    }
}
