// swift-tools-version:6.0
import PackageDescription

/// The banks, each in its own folder `Banks/NAME` (docs/architecture.md, "Recipe: add a data source"):
/// `Client` (the API, its payloads and mapping into FeedModel: Foundation, FeedModel and HTTPTransport only),
/// `Source` (its registry entry, sign-in, what it keeps between runs, its `serve --api` look-alike),
/// `Tests` (its decoding, with its fixtures) and `Fuzz` (its harnesses, which Fuzz/run.sh finds there).
/// A bank whose client needs a package of its own (a signature scheme, say) names that product beside it.
let bankList: [(name: String, clientNeeds: [Target.Dependency])] = [
    ("Starling", []),
    ("Monzo", []),
    ("Up", []),
    ("Bunq", [.product(name: "_CryptoExtras", package: "swift-crypto")]),
    ("SimpleFIN", []),
    ("EnableBanking", [.product(name: "_CryptoExtras", package: "swift-crypto"), .product(name: "Crypto", package: "swift-crypto")]),
]
let banks = bankList.map(\.name)

/// What every bank's targets are, from its name and what its client needs.
func bankTargets(_ name: String, clientNeeds: [Target.Dependency]) -> [Target] {
    [
        .target(name: "\(name)Client", dependencies: ["FeedModel", "HTTPTransport"] + clientNeeds, path: "Banks/\(name)/Client"),
        .target(name: "\(name)Source", dependencies: [.target(name: "\(name)Client"), "SourceKit", "FeedModel", "HTTPTransport",
                                                      "DemoData", "DemoServer"],
                path: "Banks/\(name)/Source"),
        .testTarget(name: "\(name)ClientTests", dependencies: [.target(name: "\(name)Client"), "FeedModel", "HTTPTransport",
                                                                 .product(name: "PropertyBased", package: "swift-property-based")],
                    path: "Banks/\(name)/Tests", resources: [.copy("Fixtures")]),
    ]
}

/// Every bank's registry entry and look-alike: what the executable and the tests that drive every source link.
let bankSources: [Target.Dependency] = banks.map { .target(name: "\($0)Source") }
/// Every bank's client, for the tests that drive a bank's API directly.
let bankClients: [Target.Dependency] = banks.map { .target(name: "\($0)Client") }

let package = Package(
    name: "qapital-tui",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "qapital-tui", targets: ["qapital-tui"]),
        .executable(name: "qapital-bench", targets: ["qapital-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        // The config file (TOML), read by the executable only.
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        // A real CSV reader for the tests of the commands' CSV (test targets only).
        .package(url: "https://github.com/swiftcsv/SwiftCSV", from: "0.10.0"),
        // Property-based tests (swift-testing), test targets only.
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // RSA (PKCS #1 v1.5, SHA-256) for a bank whose API signs requests and answers (bunq), its client only.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        .systemLibrary(name: "CNcurses", path: "Sources/CNcurses"),
        // libpng and libjpeg (Debian: libpng-dev, libjpeg-dev), with C shims that keep their longjmps in C.
        .systemLibrary(name: "CImageCodecs", path: "Sources/CImageCodecs"),
        // libcurl (Debian: libcurl4-openssl-dev), called directly by HTTPTransport's HTTPFetcher, with C shims for
        // its variadic setopt and getinfo.
        .systemLibrary(name: "CCurl", path: "Sources/CCurl"),
        // The domain, decoding helpers, the `SavingsAPI` and `OfflineCache` seams, the pager and the stores.
        .target(name: "FeedModel"),
        .target(name: "TermUI", dependencies: ["CNcurses"]),
        // HTTP plumbing every HTTP source shares: base URL, bearer token, timeouts, encoding, errors, pictures.
        .target(name: "HTTPTransport", dependencies: ["FeedModel", "CCurl"]),
        // The Qapital API of docs/api.md over HTTP.
        .target(name: "QapitalClient", dependencies: ["FeedModel", "HTTPTransport"]),
        // The built-in demo: dataset, in-process backend and API, generated pictures.
        .target(name: "DemoData", dependencies: ["FeedModel", "HTTPTransport"]),
        // `serve`: the demo backend over real HTTP: a strict, bounded HTTP/1.1 server on SwiftNIO's event loops
        // (NIOCore and NIOPosix only; its own request parser, see docs/performance.md for why and what it costs).
        .target(name: "DemoServer", dependencies: ["FeedModel", "DemoData",
                                                   .product(name: "NIOCore", package: "swift-nio"),
                                                   .product(name: "NIOPosix", package: "swift-nio"),
                                                   .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]),
        // The offline cache: SQLite through GRDB, behind FeedModel's `OfflineCache` protocol.
        .target(name: "FeedCache", dependencies: ["FeedModel", .product(name: "GRDB", package: "GRDB.swift")]),
        // What a source declares to be registered (`RegisteredSource`: how it opens, signs in, keeps its last account
        // and is served), shared by every source and the executable; it names none of them.
        .target(name: "SourceKit", dependencies: ["FeedModel", "HTTPTransport", "DemoData", "DemoServer", "FeedCache"]),
        // Pictures in the terminal: decoding, scaling, half-block cells, the image store.
        .target(name: "TermImage", dependencies: ["CImageCodecs", "TermUI"]),
        // The app without its command line: state, screens and the event loop.
        .target(
            name: "QapitalApp",
            dependencies: ["FeedModel", "TermUI", "TermImage", "CNcurses"]
        ),
        // The headless commands (goals, activity, roundups, export): their formats and logic, on the `SavingsAPI` seam.
        .target(name: "Commands", dependencies: ["FeedModel", "TermUI"]),
        .executableTarget(
            name: "qapital-tui",
            dependencies: [
                "FeedModel", "TermUI", "QapitalApp", "FeedCache", "HTTPTransport", "QapitalClient", "DemoData",
                "DemoServer", "Commands", "SourceKit",
            ] + bankSources + [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        // What the tests and the bench share: the one fake API, the wait helper, the pseudo-terminal driver,
        // ...and the in-process demo server and raw socket client the server and client tests share.
        .target(name: "TestSupport", dependencies: ["FeedModel", "CNcurses", "DemoData", "DemoServer", "QapitalClient", "Commands"] + bankSources),
        .executableTarget(name: "qapital-bench",
                          dependencies: ["CNcurses", "FeedModel", "TermUI", "QapitalApp", "DemoData", "DemoServer", "QapitalClient",
                                         "TestSupport", "Commands"]),
        .testTarget(
            name: "FeedModelTests",
            dependencies: ["FeedModel", "DemoData", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based")],
            resources: [.copy("Fixtures")]
        ),
        // A test target per target with tests of its own; AppTests keeps the app's (and the binary's).
        .testTarget(name: "HTTPTransportTests", dependencies: ["HTTPTransport", "QapitalClient", "StarlingClient", "FeedModel", "TestSupport"]),
        .testTarget(name: "QapitalClientTests", dependencies: ["QapitalClient", "HTTPTransport", "FeedModel", "DemoData", "DemoServer",
                                                          "TestSupport"]),
        .testTarget(name: "DemoServerTests", dependencies: ["DemoServer", "DemoData", "FeedModel", "QapitalClient",
                                                       "HTTPTransport", "TestSupport"] + bankClients + bankSources),
        .testTarget(name: "TermUITests", dependencies: ["TermUI"]),
        .testTarget(name: "FeedCacheTests", dependencies: ["FeedCache", "FeedModel", "QapitalApp", "QapitalClient", "DemoData",
                                                           "DemoServer", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "TermImageTests", dependencies: ["TermImage", "CImageCodecs", "TermUI", "FeedModel", "DemoData", "TestSupport"]),
        // The headless commands (goals, activity, roundups, export) in process, against the demo and `serve`.
        .testTarget(name: "CommandsTests", dependencies: ["Commands", "DemoData", "DemoServer", "FeedCache", "FeedModel",
                                                          "QapitalClient", "TermUI", "TestSupport",
                                                          .product(name: "SwiftCSV", package: "SwiftCSV"),
                                                          .product(name: "PropertyBased", package: "swift-property-based")]
                        + bankClients + bankSources),
        .testTarget(name: "AppTests", dependencies: ["qapital-tui", "QapitalApp", "FeedModel", "TermUI", "TermImage", "CNcurses",
                                                     "DemoData", "DemoServer", "QapitalClient", "HTTPTransport", "TestSupport",
                                                     "FeedCache", "Commands", "SourceKit"] + bankClients + bankSources,
                    // Golden frames: read and written in the source tree through #filePath, not bundled.
                    exclude: ["Golden"]),
    ] + bankList.flatMap { bankTargets($0.name, clientNeeds: $0.clientNeeds) },
    swiftLanguageModes: [.v6]
)
