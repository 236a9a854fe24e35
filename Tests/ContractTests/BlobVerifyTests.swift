import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// `vaultsync-server blobs verify` and `vaultsync repair` as an operator and a user run them: real
/// processes against a live server's database and file store. A deleted blob, a truncated one and
/// one with a byte flipped are named with the paths and versions that hold them (the flipped byte
/// only by `--deep`); the folder that still holds two of them heals the server, and the third (an
/// old version no device holds) is reported as not held.
@Suite struct BlobVerifyTests: CLISuite {
    @Test func verifyNamesDamageAndADeviceRepairsWhatItHolds() async throws {
        try await TestServer.with(configure: { $0.metricsToken = "scrape-me-0123456789" }) { server in
            let folder = newFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            func put(_ name: String, _ text: String) throws { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
            try put("a.md", "the first version of a")
            try put("b.md", "b, which will be cut short")
            try put("c.md", "c, whose byte will flip")
            let email = "verify-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            let created = try await vaultsync(["init", folder.path, "--create-account", "--server", server.baseURL.absoluteString, "--email", email, "--device-name", "laptop"])
            #expect(created.exitCode == 0, "\(created)")
            try put("a.md", "the second version of a")
            #expect(try await vaultsync(["sync", folder.path]).exitCode == 0)

            func verify(_ extra: [String] = []) async throws -> (CLIResult, [String: Any]) {
                let result = try await CLIProcess.run(
                    "vaultsync-server",
                    ["blobs", "verify", "--data-dir", server.dataDirectory.path, "--database-url", server.databaseURL, "--json", "--log-level", "warning"] + extra)
                return (result, try result.json())
            }

            /// A value of the server's metrics.
            func scrape(_ series: String) async throws -> Double? {
                let url = server.baseURL.appendingPathComponent("metrics")
                let scraped = try await RawHTTP.send("GET", url, headers: ["Authorization": "Bearer scrape-me-0123456789"], protocolVersion: nil)
                let lines = String(decoding: scraped.body, as: UTF8.self).split(separator: "\n")
                return lines.first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
            }

            let (clean, cleanReport) = try await verify(["--deep"])
            #expect(clean.exitCode == 0 && cleanReport["held"] as? Bool == true && cleanReport["checked"] as? Int == 4, "\(clean)")
            let nothing = try await vaultsync(["repair", folder.path])
            #expect(nothing.exitCode == 0 && nothing.stdout.contains("no damaged files"), "\(nothing)")

            // The damage, done to the files as a failing disk or a careless hand would.
            func file(_ content: String) throws -> URL {
                let hex = ContentHasher.hash(Data(content.utf8)).hex
                let name = try #require(server.storedBlobFiles().first { $0.hasSuffix(hex) })
                return server.dataDirectory.appendingPathComponent("blobs").appendingPathComponent(name)
            }
            try FileManager.default.removeItem(at: try file("the first version of a"))
            let short = try FileHandle(forWritingTo: try file("b, which will be cut short"))
            try short.truncate(atOffset: 3)
            try short.close()
            let flipped = try file("c, whose byte will flip")
            var bytes = try Data(contentsOf: flipped)
            bytes[0] ^= 0xFF
            try bytes.write(to: flipped)

            let (shallow, shallowReport) = try await verify()
            #expect(shallow.exitCode == 1, "\(shallow)")
            let problems = try #require(shallowReport["problems"] as? [[String: Any]])
            func find(_ kind: String, in problems: [[String: Any]]) -> [String: Any]? { problems.first { $0["kind"] as? String == kind } }
            let missing = try #require(find("missing", in: problems), "\(problems)")
            let reference = try #require((missing["references"] as? [[String: Any]])?.first)
            #expect(reference["path"] as? String == "a.md" && reference["version"] as? Int == 1 && reference["current"] as? Bool == false && reference["device"] as? String == "laptop")
            let cut = try #require(find("wrong_size", in: problems), "\(problems)")
            #expect(cut["found_bytes"] as? Int == 3 && ((cut["references"] as? [[String: Any]])?.first?["path"] as? String) == "b.md")
            #expect(find("corrupt", in: problems) == nil && problems.count == 2, "without --deep a flipped byte keeps its size")

            let (deep, deepReport) = try await verify(["--deep"])
            #expect(deep.exitCode == 1)
            let deepProblems = try #require(deepReport["problems"] as? [[String: Any]])
            let corrupt = try #require(find("corrupt", in: deepProblems), "\(deepProblems)")
            #expect(((corrupt["references"] as? [[String: Any]])?.first?["path"] as? String) == "c.md" && deepProblems.count == 3)

            // Continued after the last blob of a full run: nothing left to check.
            let last = try #require(deepReport["last_checked"] as? String)
            let (rest, restReport) = try await verify(["--after", last])
            #expect(rest.exitCode == 0 && restReport["checked"] as? Int == 0, "\(rest)")
            let text = try await CLIProcess.run(
                "vaultsync-server", ["blobs", "verify", "--data-dir", server.dataDirectory.path, "--database-url", server.databaseURL, "--log-level", "warning"])
            #expect(text.stdout.contains("missing") && text.stdout.contains("a.md version 1, written by laptop"), "\(text)")
            // /metrics: the last whole run (that one, by size: the flip unseen) and the marks, of
            // which a check by size took none away.
            #expect(try await scrape("vaultsync_blob_verify_last_run{figure=\"wrong_size\"}") == 1)
            #expect(try await scrape("vaultsync_blob_verify_last_run{figure=\"corrupt\"}") == 0)
            #expect(try await scrape("vaultsync_blob_verify_last_run{figure=\"checked\"}") == 4)
            #expect(try await scrape("vaultsync_blobs_damaged") == 3)

            // The folder holds b and c as they were: it heals them; a's first version is nowhere.
            let repaired = try await vaultsync(["repair", folder.path, "--json"])
            #expect(repaired.exitCode == 0, "\(repaired)")
            let said = try repaired.json()
            #expect(said["damaged"] as? Int == 3 && (said["repaired"] as? [String])?.count == 2 && (said["not_held"] as? [String])?.count == 1, "\(said)")
            #expect(Set(said["uploaded"] as? [String] ?? []) == ["b.md", "c.md"], "\(said)")
            #expect(try Data(contentsOf: try file("c, whose byte will flip")) == Data("c, whose byte will flip".utf8), "the store holds the bytes again")

            let (after, afterReport) = try await verify(["--deep"])
            let left = try #require(afterReport["problems"] as? [[String: Any]])
            #expect(after.exitCode == 1 && left.count == 1 && left.first?["kind"] as? String == "missing", "\(after)")
            let again = try await vaultsync(["repair", folder.path])
            #expect(again.exitCode == 0 && again.stdout.contains("1 damaged on the server: 0 repaired from this folder, 1 not held here"), "\(again)")
            #expect(try await vaultsync(["log", folder.path]).stdout.contains("repair"))
            #expect(try await scrape("vaultsync_blobs_damaged") == 1)
        }
    }

    /// The same damage in an S3 bucket (moto): found by size and by reading, and healed through
    /// the repair calls a device makes (presigned uploads straight to the bucket, read back by the
    /// server before it counts them whole).
    @Test func onS3TheDamageIsFoundAndHealedThroughTheRepairCalls() async throws {
        let configure = try await BlobBackend.s3Presigned.configuration()
        try await TestServer.with(configure: configure) { server in
            let device = try await server.newUser().newDevice("laptop")
            let texts = ["a.md": "a, whose object goes", "b.md": "b, which will be cut short", "c.md": "c, whose byte will flip"]
            for (path, text) in texts { try await device.write(path, text) }
            let bucket = String(server.configuration.blobStore.dropFirst("s3://".count).prefix { $0 != "?" })
            func key(_ text: String) async throws -> String {
                let hex = ContentHasher.hash(Data(text.utf8)).hex
                return try #require(try await TestMoto.objectKeys(bucket: bucket).first { $0.hasSuffix(hex) })
            }
            try await TestMoto.replaceObject(bucket: bucket, key: try await key(texts["a.md"]!), with: nil)
            try await TestMoto.replaceObject(bucket: bucket, key: try await key(texts["b.md"]!), with: Data("b, w".utf8))
            var flipped = Data(texts["c.md"]!.utf8)
            flipped[0] ^= 0xFF
            try await TestMoto.replaceObject(bucket: bucket, key: try await key(texts["c.md"]!), with: flipped)

            func verify(deep: Bool) async throws -> [String: String] {
                let report = try await VaultSyncServer.verifyBlobs(configuration: server.configuration, deep: deep, logger: TestCluster.quietLogger)
                return Dictionary(uniqueKeysWithValues: report.problems.map { ($0.references.first?.path ?? "?", $0.kind.rawValue) })
            }
            #expect(try await verify(deep: false) == ["a.md": "missing", "b.md": "wrong_size"])
            #expect(try await verify(deep: true) == ["a.md": "missing", "b.md": "wrong_size", "c.md": "corrupt"])

            // What `vaultsync repair` does: list, upload what this device holds, confirm.
            let list = try await device.api.repairList(session: device.session)
            #expect(list.wanted.count == 3 && !list.hasMore)
            let rest = try await device.api.repairList(after: list.wanted[0].contentHash, session: device.session)
            #expect(rest.wanted.map(\.contentHash) == list.wanted.dropFirst().map(\.contentHash), "pages continue in hash order")
            let held = Dictionary(uniqueKeysWithValues: texts.values.map { (ContentHasher.hash(Data($0.utf8)), Data($0.utf8)) })
            for wanted in list.wanted where wanted.contentHash != ContentHasher.hash(Data(texts["a.md"]!.utf8)) {
                try await device.api.uploadBlob(try #require(held[wanted.contentHash]), to: wanted.uploadURL, headers: wanted.uploadHeaders ?? [:])
            }
            let answer = try await device.api.confirmRepair(RepairConfirmRequest(contentHashes: list.wanted.map(\.contentHash)), session: device.session)
            #expect(answer.repaired.count == 2 && answer.stillDamaged == [ContentHasher.hash(Data(texts["a.md"]!.utf8))], "\(answer)")
            #expect(try await TestMoto.object(bucket: bucket, key: try await key(texts["c.md"]!)) == Data(texts["c.md"]!.utf8))
            #expect(try await verify(deep: true) == ["a.md": "missing"])
            #expect(try await device.api.repairList(session: device.session).wanted.map(\.problem) == ["missing"])
        }
    }
}
