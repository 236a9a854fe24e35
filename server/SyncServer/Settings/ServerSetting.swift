public import Foundation
public import Logging

/// One setting of the server's commands, written once: its flag, its environment key, its
/// default, its help, and how its text sets the configuration. The flags a command takes, the
/// environment it reads, its `--help` and the table in `docs/deployment.md` all come from
/// ``ServerSettings``. A flag wins over the environment; a secret is read from the environment
/// only (flags show in `ps`).
public struct ServerSetting: Sendable {
    public enum Kind: Sendable, Equatable {
        /// `--name VALUE`.
        case value(valueName: String)
        /// `--name`; in the environment `1`, `true` or `yes`.
        case flag
        /// `--name VALUE`, repeatable; in the environment one text, items split at `separator`.
        case list(valueName: String, separator: Character)
        /// From the environment only.
        case secret
    }

    /// The flag without its dashes (`port`); for a secret, its environment key.
    public let name: String
    /// The environment key (`VAULTSYNC_PORT`).
    public let environment: String
    /// Further keys read when `environment` is unset (`AWS_ACCESS_KEY_ID`).
    public var alternatives: [String] = []
    public let kind: Kind
    /// What it does, for `--help` and the docs (the default and the key are added to it).
    public let help: String
    /// The default as a person reads it, from a fresh ``ServerConfiguration`` (nil: none is said).
    let defaultText: @Sendable (ServerConfiguration) -> String?
    /// Sets the setting from one text (one item of a list).
    let apply: @Sendable (inout ServerSettingsValues, String) throws(SettingError) -> Void

    /// `--name` (a secret has no flag).
    public var flag: String? { kind == .secret ? nil : "--" + name }

    /// How the flag is written, its value named by `value` (`--port <port>`); nil for a secret.
    func synopsis(_ value: (String) -> String) -> String? {
        switch kind {
        case .value(let valueName): "--\(name) \(value(valueName))"
        case .list(let valueName, _): "--\(name) \(value(valueName)) (repeatable)"
        case .flag: "--\(name)"
        case .secret: nil
        }
    }

    /// The default, as `--help` and the docs say it.
    public var defaultDescription: String? { defaultText(ServerConfiguration()) }
}

/// What the settings set: the server's configuration, and how the command logs.
public struct ServerSettingsValues: Sendable {
    public var configuration = ServerConfiguration()
    public var logLevel: Logger.Level = .info
    public var logFormat: LogFormat = .text
    /// APNs needs four settings together; collected here and checked by ``ServerSettings/finish(_:)``.
    var apns: [String: String] = [:]

    public init() {}
}

/// How a command's log lines are written.
public enum LogFormat: String, Sendable, CaseIterable {
    /// One readable line per event.
    case text
    /// One JSON object per line, for log shippers.
    case json
}

/// A setting's text that cannot be used: why, without naming where it came from (the reader adds
/// the flag or the environment key).
public struct SettingError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension ServerSetting {
    /// An integer setting of at least `minimum`.
    static func integer(
        _ name: String, _ environment: String, valueName: String = "n", minimum: Int, _ help: String,
        default defaultText: @escaping @Sendable (ServerConfiguration) -> String?, set: @escaping @Sendable (inout ServerSettingsValues, Int) -> Void
    ) -> ServerSetting {
        ServerSetting(name: name, environment: environment, kind: .value(valueName: valueName), help: help, defaultText: defaultText) { values, text throws(SettingError) in
            guard let number = Int(text.trimmingCharacters(in: .whitespaces)) else { throw SettingError("'\(text.prefix(40))' is not a whole number") }
            guard number >= minimum else { throw SettingError(minimum == 0 ? "must not be negative" : "must be at least \(minimum)") }
            set(&values, number)
        }
    }

    /// A duration setting, written as 90d, 12h, 15m, 30s or 0 (``DurationText``).
    static func duration(
        _ name: String, _ environment: String, _ help: String,
        default defaultText: @escaping @Sendable (ServerConfiguration) -> String?, set: @escaping @Sendable (inout ServerSettingsValues, Duration) -> Void
    ) -> ServerSetting {
        ServerSetting(name: name, environment: environment, kind: .value(valueName: "duration"), help: help, defaultText: defaultText) { values, text throws(SettingError) in
            do { set(&values, try DurationText.parse(text)) } catch { throw SettingError("\(error)") }
        }
    }

    /// A setting taken as written (`check` may refuse it).
    static func text(
        _ name: String, _ environment: String, valueName: String, _ help: String,
        default defaultText: @escaping @Sendable (ServerConfiguration) -> String? = { _ in nil },
        set: @escaping @Sendable (inout ServerSettingsValues, String) throws(SettingError) -> Void
    ) -> ServerSetting {
        ServerSetting(name: name, environment: environment, kind: .value(valueName: valueName), help: help, defaultText: defaultText, apply: set)
    }

    /// One of a fixed set of words.
    static func choice<Choice: RawRepresentable & CaseIterable & Sendable>(
        _ name: String, _ environment: String, valueName: String, _ help: String, _ type: Choice.Type,
        default defaultText: @escaping @Sendable (ServerConfiguration) -> String?, set: @escaping @Sendable (inout ServerSettingsValues, Choice) -> Void
    ) -> ServerSetting where Choice.RawValue == String {
        ServerSetting(name: name, environment: environment, kind: .value(valueName: valueName), help: help, defaultText: defaultText) { values, text throws(SettingError) in
            guard let choice = Choice(rawValue: text) else {
                throw SettingError("'\(text.prefix(40))' is not one of \(Choice.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", "))")
            }
            set(&values, choice)
        }
    }

    /// A switch that is off unless given.
    static func flag(_ name: String, _ environment: String, _ help: String, set: @escaping @Sendable (inout ServerSettingsValues) -> Void) -> ServerSetting {
        ServerSetting(name: name, environment: environment, kind: .flag, help: help, defaultText: { _ in "off" }) { values, text throws(SettingError) in
            switch text.lowercased() {
            case "1", "true", "yes": set(&values)
            case "0", "false", "no", "": break
            default: throw SettingError("'\(text.prefix(40))' is not 1, true, yes, 0, false or no")
            }
        }
    }

    /// A repeatable setting.
    static func list(
        _ name: String, _ environment: String, valueName: String, separator: Character, _ help: String,
        set: @escaping @Sendable (inout ServerSettingsValues, String) throws(SettingError) -> Void
    ) -> ServerSetting {
        ServerSetting(name: name, environment: environment, kind: .list(valueName: valueName, separator: separator), help: help, defaultText: { _ in nil }, apply: set)
    }

    /// A secret, from the environment only.
    static func secret(
        _ environment: String, alternatives: [String] = [], _ help: String, set: @escaping @Sendable (inout ServerSettingsValues, String) -> Void
    ) -> ServerSetting {
        ServerSetting(
            name: environment, environment: environment, alternatives: alternatives, kind: .secret, help: help, defaultText: { _ in nil }
        ) { values, text throws(SettingError) in set(&values, text) }
    }
}
