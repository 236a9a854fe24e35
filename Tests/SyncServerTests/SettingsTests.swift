import Foundation
@testable import SyncServer
import TestSupport
import Testing

/// The server's settings table: how a flag, its environment key and its default combine, and that
/// the docs' table is the one the code has.
@Suite struct SettingsTests {
    static func values(_ arguments: [String], _ environment: [String: String] = [:], of settings: [ServerSetting] = ServerSettings.serve) throws(SettingError) -> ServerSettingsValues {
        let (input, rest) = try SettingsInput.extract(arguments, known: settings, environment: environment)
        #expect(rest.isEmpty, "left for the command's own parser: \(rest)")
        return try input.values(of: settings, command: "serve")
    }

    @Test func aFlagWinsOverItsEnvironmentKeyWhichWinsOverTheDefault() throws {
        #expect(try Self.values([]).configuration.port == ServerConfiguration().port)
        #expect(try Self.values([], ["VAULTSYNC_PORT": "9000"]).configuration.port == 9000)
        #expect(try Self.values(["--port", "9100"], ["VAULTSYNC_PORT": "9000"]).configuration.port == 9100)
        #expect(try Self.values(["--port=9200"]).configuration.port == 9200)
    }

    @Test func aRepeatableFlagReplacesItsEnvironmentListWhichIsSplitAtItsSeparator() throws {
        #expect(try Self.values([], ["VAULTSYNC_TRUSTED_PROXIES": "10.0.0.1, 10.0.0.2,"]).configuration.trustedProxies == ["10.0.0.1", "10.0.0.2"])
        let flags = try Self.values(["--trusted-proxy", "10.0.0.3", "--trusted-proxy=10.0.0.4"], ["VAULTSYNC_TRUSTED_PROXIES": "10.0.0.1"])
        #expect(flags.configuration.trustedProxies == ["10.0.0.3", "10.0.0.4"])
    }

    @Test func aSwitchIsOnWhenGivenOrSetToOneTrueOrYes() throws {
        #expect(try Self.values([]).configuration.allowSignup)
        #expect(try !Self.values(["--no-signup"]).configuration.allowSignup)
        for on in ["1", "true", "YES"] { #expect(try !Self.values([], ["VAULTSYNC_NO_SIGNUP": on]).configuration.allowSignup) }
        #expect(try Self.values([], ["VAULTSYNC_NO_SIGNUP": "0"]).configuration.allowSignup)
    }

    @Test func secretsComeFromTheEnvironmentOnlyWithTheirAlternatives() throws {
        #expect(try Self.values([], ["VAULTSYNC_JWT_SECRET": "s"]).configuration.jwtSecret == "s")
        #expect(try Self.values([], ["AWS_ACCESS_KEY_ID": "aws"]).configuration.s3AccessKeyID == "aws")
        #expect(try Self.values([], ["AWS_ACCESS_KEY_ID": "aws", "VAULTSYNC_S3_ACCESS_KEY_ID": "own"]).configuration.s3AccessKeyID == "own")
        let (_, rest) = try SettingsInput.extract(["--jwt-secret", "s"], known: ServerSettings.serve, environment: [:])
        #expect(rest == ["--jwt-secret", "s"], "no flag takes a secret: ArgumentParser refuses it")
    }

    /// Each refusal names where the text came from and changes nothing.
    @Test(arguments: [
        (["--port", "x"], [:], "--port: 'x' is not a whole number"),
        (["--port"], [:], "--port needs a value"),
        ([], ["VAULTSYNC_EVENT_PING_SECONDS": "0"], "VAULTSYNC_EVENT_PING_SECONDS: must be at least 1"),
        (["--blob-access", "direct"], [:], "--blob-access: 'direct' is not one of 'presigned', 'proxied'"),
        (["--tombstone-retention", "3 weeks"], [:], "--tombstone-retention:"),
        (["--public-url", "ftp://x"], [:], "--public-url: 'ftp://x' is not an http(s) URL"),
        (["--oidc", "name=x"], [:], "--oidc: 'name=x' must be"),
        (["--no-signup=yes"], [:], "--no-signup takes no value"),
        (["--apns-key-id", "K"], [:], "APNs needs --apns-key-file, --apns-key-id, --apns-team-id, --apns-topic together: --apns-key-file, --apns-team-id, --apns-topic missing"),
    ] as [([String], [String: String], String)])
    func badTextIsRefusedNamingItsSource(_ arguments: [String], _ environment: [String: String], _ message: String) {
        #expect(performing: { try Self.values(arguments, environment) }, throws: { ($0 as? SettingError)?.description.hasPrefix(message) == true })
    }

    @Test func aCommandIsRefusedASettingItDoesNotRead() throws {
        let (input, _) = try SettingsInput.extract(["--port", "80"], known: ServerSettings.serve, environment: [:])
        #expect(throws: SettingError("'migrate' does not take --port")) { try input.values(of: ServerSettings.common, command: "migrate") }
    }

    @Test func argumentsAfterADoubleDashAndThoseOfNoSettingAreLeftForTheCommand() throws {
        let (input, rest) = try SettingsInput.extract(["user@x", "--port", "1", "--json", "--", "--port", "2"], known: ServerSettings.serve, environment: [:])
        #expect(input.flags["port"] == ["1"] && rest == ["user@x", "--json", "--", "--port", "2"])
    }

    @Test func everySettingHasItsOwnFlagAndEnvironmentKey() {
        let settings = ServerSettings.serve
        #expect(Set(settings.map(\.name)).count == settings.count)
        #expect(Set(settings.map(\.environment)).count == settings.count)
        #expect(settings.allSatisfy { $0.environment.hasPrefix("VAULTSYNC_") })
    }

    @Test func theDeploymentDocsTableIsTheSettingsTable() throws {
        let docs = try Repository.text("docs/deployment.md")
        let start = "<!-- settings table: generated from ServerSettings.markdownTable; SettingsTests checks it -->\n"
        let end = "\n<!-- end of the settings table -->"
        let from = try #require(docs.range(of: start), "docs/deployment.md has no settings table")
        let to = try #require(docs.range(of: end, range: from.upperBound..<docs.endIndex))
        let table = String(docs[from.upperBound..<to.lowerBound])
        #expect(table == ServerSettings.markdownTable, "docs/deployment.md's settings table is not current; it should read:\n\(ServerSettings.markdownTable)\nEND")
    }
}
