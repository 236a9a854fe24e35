import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// Growing out of the embedded default: `vaultsync-server blobs migrate` copies a populated file
/// store to S3 (moto) while the server runs, a rerun after the switch copies what arrived in
/// between, and a device syncs everything from a server on the new store.
@Suite struct BlobMigrationTests: CLISuite {
    @Test func aFileStoreMovesToS3WhileTheServerRuns() async throws {
        try await HeavyTests.oneAtATime {
            let secret = "one secret for both servers of this test"
            let moto = try await TestMoto.endpoint()
            let bucket = "vaultsync-move-\(UUID().uuidString.prefix(8).lowercased())"
            let s3 = "s3://\(bucket)?endpoint=\(moto.absoluteString)&path_style=true"
            let credentials = ["VAULTSYNC_S3_ACCESS_KEY_ID": "testing", "VAULTSYNC_S3_SECRET_ACCESS_KEY": "testing"]
            try await TestServer.with(configure: { $0.jwtSecret = secret }) { old in
                let user = try await old.newUser()
                let laptop = try await TestVault.link(user, deviceName: "laptop")
                defer { laptop.remove() }
                for index in 0..<20 { try laptop.write("notes/n\(index).md", "note \(index)") }
                try laptop.write("big.txt", String(repeating: "large enough for a blob upload. ", count: 10_000))
                #expect(try await laptop.sync().failures.isEmpty)
                let stored = old.storedBlobFiles().count
                #expect(stored >= 21)

                func migrate(_ extra: [String] = []) async throws -> CLIResult {
                    try await CLIProcess.run(
                        "vaultsync-server",
                        ["blobs", "migrate", "--data-dir", old.dataDirectory.path, "--database-url", old.databaseURL, "--to", s3, "--json", "--log-level", "warning"] + extra,
                        environment: credentials)
                }
                // Copied while the server runs and serves.
                let first = try await migrate(["--s3-create-bucket"])
                #expect(first.exitCode == 0, "\(first)")
                #expect(try first.json()["copied"] as? Int == stored && first.json()["already_there"] as? Int == 0, "\(first)")

                // A note arrives at the old store before the switch.
                try laptop.write("late.md", "written after the first copy")
                #expect(try await laptop.sync().failures.isEmpty)

                // The switch: a server on the new store (the same database); then the rerun copies
                // only what arrived in between.
                try await TestServer.with(configure: {
                    $0.jwtSecret = secret
                    $0.databaseURL = old.databaseURL
                    $0.blobStore = s3
                    $0.s3AccessKeyID = "testing"
                    $0.s3SecretAccessKey = "testing"
                }) { new in
                    let again = try await migrate()
                    #expect(again.exitCode == 0, "\(again)")
                    #expect(try again.json()["copied"] as? Int == 1 && again.json()["already_there"] as? Int == stored, "\(again)")
                    #expect(try await TestMoto.objectKeys(bucket: bucket).count == stored + 1)

                    let phoneRoot = URL(fileURLWithPath: "/tmp/vaultsync-vault-\(UUID().uuidString.prefix(8))")
                    try FileManager.default.createDirectory(at: phoneRoot, withIntermediateDirectories: true)
                    let phone = TestVault(
                        root: phoneRoot,
                        engine: try await SyncEngine.link(root: phoneRoot, server: new.baseURL, email: user.email, password: user.password, deviceName: "phone"))
                    defer { phone.remove() }
                    let report = try await phone.sync()
                    #expect(report.failures.isEmpty && report.pulled.count == 22, "\(report)")
                    #expect(try phone.files() == laptop.files(), "every file, from the new store")
                }
            }
        }
    }
}
