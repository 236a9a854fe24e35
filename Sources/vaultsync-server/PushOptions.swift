import ArgumentParser
import Foundation
import SyncServer

/// `serve`'s push-notification settings (see docs/deployment.md, "Push notifications").
struct PushOptions: ParsableArguments {
    @Option(help: ArgumentHelp("APNs signing key (the AuthKey_<key id>.p8 file); with --apns-key-id, --apns-team-id and --apns-topic turns APNs pushes on. Env: VAULTSYNC_APNS_KEY_FILE.", valueName: "file"))
    var apnsKeyFile: String?
    @Option(help: ArgumentHelp("The APNs key's 10-character id. Env: VAULTSYNC_APNS_KEY_ID.", valueName: "id"))
    var apnsKeyID: String?
    @Option(help: ArgumentHelp("The Apple developer team id. Env: VAULTSYNC_APNS_TEAM_ID.", valueName: "id"))
    var apnsTeamID: String?
    @Option(help: ArgumentHelp("The app's bundle id (apns-topic). Env: VAULTSYNC_APNS_TOPIC.", valueName: "bundle-id"))
    var apnsTopic: String?
    @Option(help: ArgumentHelp("'production' (the default) or 'sandbox' (development builds of the app). Env: VAULTSYNC_APNS_ENVIRONMENT.", valueName: "name"))
    var apnsEnvironment: String?
    @Option(help: ArgumentHelp("Google service account key (JSON) of the Firebase project; turns FCM pushes on. Env: VAULTSYNC_FCM_SERVICE_ACCOUNT_FILE.", valueName: "file"))
    var fcmServiceAccountFile: String?
    @Option(help: ArgumentHelp("At most one push per device and vault in this many seconds; later changes follow in one push. Default 5. Env: VAULTSYNC_PUSH_INTERVAL_SECONDS.", valueName: "seconds"))
    var pushIntervalSeconds: Int?
    @Option(help: ArgumentHelp("PEM certificates trusted for the push services besides the system's (a TLS-inspecting proxy). Env: VAULTSYNC_PUSH_CA_FILE.", valueName: "file"))
    var pushCAFile: String?

    func apply(to configuration: inout ServerConfiguration, environment env: [String: String]) throws {
        let apns = [
            ("--apns-key-file", apnsKeyFile ?? env["VAULTSYNC_APNS_KEY_FILE"]), ("--apns-key-id", apnsKeyID ?? env["VAULTSYNC_APNS_KEY_ID"]),
            ("--apns-team-id", apnsTeamID ?? env["VAULTSYNC_APNS_TEAM_ID"]), ("--apns-topic", apnsTopic ?? env["VAULTSYNC_APNS_TOPIC"]),
        ]
        let given = apns.filter { $0.1 != nil }
        if !given.isEmpty {
            guard given.count == apns.count else {
                let missing = apns.filter { $0.1 == nil }.map(\.0).joined(separator: ", ")
                throw ValidationError("APNs needs \(apns.map(\.0).joined(separator: ", ")) together: \(missing) missing")
            }
            var settings = APNsSettings(keyFile: URL(fileURLWithPath: apns[0].1!), keyID: apns[1].1!, teamID: apns[2].1!, topic: apns[3].1!)
            if let name = apnsEnvironment ?? env["VAULTSYNC_APNS_ENVIRONMENT"] {
                guard let environment = APNsSettings.Environment(rawValue: name) else {
                    throw ValidationError("--apns-environment '\(name)' must be 'production' or 'sandbox'")
                }
                settings.environment = environment
            }
            configuration.push.apns = settings
        }
        if let file = fcmServiceAccountFile ?? env["VAULTSYNC_FCM_SERVICE_ACCOUNT_FILE"] {
            configuration.push.fcm = FCMSettings(serviceAccountFile: URL(fileURLWithPath: file))
        }
        if let seconds = try pushIntervalSeconds ?? envInt(env, "VAULTSYNC_PUSH_INTERVAL_SECONDS") {
            guard seconds >= 1 else { throw ValidationError("--push-interval-seconds must be at least 1") }
            configuration.push.interval = .seconds(seconds)
        }
        if let file = pushCAFile ?? env["VAULTSYNC_PUSH_CA_FILE"] { configuration.push.extraTrustRoots = URL(fileURLWithPath: file) }
    }
}
