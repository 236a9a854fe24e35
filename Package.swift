// swift-tools-version:6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let crypto: Target.Dependency = .product(name: "Crypto", package: "swift-crypto")
let cryptoExtras: Target.Dependency = .product(name: "CryptoExtras", package: "swift-crypto")
let log: Target.Dependency = .product(name: "Logging", package: "swift-log")
let nioCore: Target.Dependency = .product(name: "NIOCore", package: "swift-nio")
let nioPosix: Target.Dependency = .product(name: "NIOPosix", package: "swift-nio")
let nioWebSocket: Target.Dependency = .product(name: "NIOWebSocket", package: "swift-nio")
let nioHTTP1: Target.Dependency = .product(name: "NIOHTTP1", package: "swift-nio")
let hummingbird: Target.Dependency = .product(name: "Hummingbird", package: "hummingbird")
let hummingbirdCore: Target.Dependency = .product(name: "HummingbirdCore", package: "hummingbird")
let jwtKit: Target.Dependency = .product(name: "JWTKit", package: "jwt-kit")
let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")
let serviceLifecycle: Target.Dependency = .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let grdb: Target.Dependency = .product(name: "GRDB", package: "GRDB.swift")
let asyncHTTPClient: Target.Dependency = .product(name: "AsyncHTTPClient", package: "async-http-client")
let hummingbirdWebSocket: Target.Dependency = .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket")
let webSocketClient: Target.Dependency = .product(name: "HummingbirdWSClient", package: "hummingbird-websocket")
let httpTypes: Target.Dependency = .product(name: "HTTPTypes", package: "swift-http-types")
let nioSSL: Target.Dependency = .product(name: "NIOSSL", package: "swift-nio-ssl")
let zip: Target.Dependency = .product(name: "ZIPFoundation", package: "ZIPFoundation")
let metrics: Target.Dependency = .product(name: "Metrics", package: "swift-metrics")
let prometheus: Target.Dependency = .product(name: "Prometheus", package: "swift-prometheus")
let mustache: Target.Dependency = .product(name: "Mustache", package: "swift-mustache")
let nioHTTPTypes: Target.Dependency = .product(name: "NIOHTTPTypes", package: "swift-nio-extras")
let mcp: Target.Dependency = .product(name: "MCP", package: "swift-sdk")

let package = Package(
    name: "VaultSync",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "SyncProtocol", targets: ["SyncProtocol"]),
        .library(name: "SyncCore", targets: ["SyncCore"]),
        .library(name: "SyncClient", targets: ["SyncClient"]),
        .library(name: "VaultCrypto", targets: ["VaultCrypto"]),
        .library(name: "SyncServer", targets: ["SyncServer"]),
        .executable(name: "vaultsync-server", targets: ["vaultsync-server"]),
        .executable(name: "vaultsync", targets: ["vaultsync"]),
    ],
    dependencies: [
        // Only the FullFoundation trait: with both defaults SwiftPM 6.3.1 recompiles Hummingbird on every build.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "4.5.2"..<"5.0.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", exact: "0.9.20"),
        // Already in the graph through Hummingbird; swift-prometheus exports it at /metrics.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // Already in the graph through Hummingbird; its HTTP parts are what a channel handler sees.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.33.0"),
        // The web app's pages (no dependencies of its own).
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        // The Model Context Protocol's Swift SDK: the server's /mcp endpoint for agents (on Linux it
        // brings only swift-system beside packages already in the graph).
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk.git", from: "0.12.1"),
    ],
    targets: [
        // MARK: protocol
        .target(name: "SyncProtocol", dependencies: [crypto], path: "protocol/SyncProtocol", swiftSettings: swiftSettings),

        // MARK: server
        .systemLibrary(name: "CLibPQ", path: "server/CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // GitHub's reference Markdown (GFM) parser, for notes shown in the web app.
        .systemLibrary(name: "CCmarkGFM", path: "server/CCmarkGFM", providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"])]),
        .target(name: "Postgres", dependencies: ["CLibPQ", log, nioCore, nioPosix], path: "server/Postgres", swiftSettings: swiftSettings),
        .target(
            name: "SyncServer",
            dependencies: ["SyncProtocol", "SyncCore", "Postgres", "CCmarkGFM", mustache, hummingbird, hummingbirdCore, hummingbirdWebSocket, nioWebSocket, nioHTTP1, log, crypto, cryptoExtras, jwtKit, nioCore, nioPosix, serviceLifecycle, asyncHTTPClient, nioSSL, zip, metrics, prometheus, nioHTTPTypes, mcp],
            path: "server/SyncServer",
            swiftSettings: swiftSettings
        ),

        // MARK: client
        .target(name: "SyncCore", dependencies: ["SyncProtocol"], path: "client/SyncCore", swiftSettings: swiftSettings),
        .target(name: "VaultCrypto", dependencies: ["SyncProtocol", crypto, cryptoExtras], path: "client/VaultCrypto", swiftSettings: swiftSettings),
        .target(name: "CFileStat", path: "client/CFileStat"),
        .target(name: "SyncClient", dependencies: ["SyncCore", "SyncProtocol", "VaultCrypto", "CFileStat", grdb, log, zip, asyncHTTPClient, nioCore, nioPosix, nioHTTP1, nioSSL, nioWebSocket, webSocketClient, httpTypes], path: "client/SyncClient", swiftSettings: swiftSettings),

        // MARK: executables
        .target(name: "CommandLineSecrets", dependencies: [argumentParser], swiftSettings: swiftSettings),
        .executableTarget(name: "vaultsync-server", dependencies: ["SyncServer", "SyncProtocol", "CommandLineSecrets", argumentParser, log], swiftSettings: swiftSettings),
        .target(name: "CAllocator", path: "Sources/CAllocator"),
        .executableTarget(name: "vaultsync", dependencies: ["SyncClient", "SyncCore", "SyncProtocol", "CommandLineSecrets", "CAllocator", argumentParser, log], swiftSettings: swiftSettings),
        .executableTarget(
            name: "vaultsync-bench",
            dependencies: ["SyncServer", "SyncClient", "SyncCore", "SyncProtocol", "VaultCrypto", "TestSupport", "SeededRandom", "Postgres", argumentParser, log],
            path: "bench/vaultsync-bench",
            swiftSettings: swiftSettings
        ),

        // MARK: tests
        .target(name: "SeededRandom", path: "Tests/SeededRandom", swiftSettings: swiftSettings),
        .target(
            name: "TestSupport",
            dependencies: [
                "SeededRandom", "SyncProtocol", "SyncServer", "SyncClient", "VaultCrypto", "Postgres", log, serviceLifecycle, hummingbird, crypto, cryptoExtras, jwtKit, nioSSL,
                nioCore, nioPosix,
                .product(name: "HummingbirdHTTP2", package: "hummingbird"), .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "X509", package: "swift-certificates"), .product(name: "SwiftASN1", package: "swift-asn1"), httpTypes, asyncHTTPClient,
            ],
            path: "Tests/TestSupport", swiftSettings: swiftSettings),
        .testTarget(name: "SyncProtocolTests", dependencies: ["SyncProtocol"], resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        .testTarget(name: "SyncCoreTests", dependencies: ["SyncCore", "SyncProtocol", "SeededRandom"], swiftSettings: swiftSettings),
        .testTarget(name: "VaultCryptoTests", dependencies: ["VaultCrypto", "SyncProtocol", crypto], resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        .testTarget(name: "SyncClientTests", dependencies: ["SyncClient", "SyncCore", "SyncProtocol", "VaultCrypto", grdb], swiftSettings: swiftSettings),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "SyncServerTests", dependencies: ["SyncServer", "SyncProtocol", "SyncClient", "TestSupport", "Postgres", log, crypto, nioCore, nioPosix, asyncHTTPClient],
            resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        .testTarget(name: "ContractTests", dependencies: ["SyncServer", "SyncClient", "SyncCore", "SyncProtocol", "VaultCrypto", "TestSupport", "SeededRandom", "Postgres"], swiftSettings: swiftSettings),
    ]
)
