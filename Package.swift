// swift-tools-version:6.0
import PackageDescription

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
        // A real CSV reader for the tests of the commands' CSV.
        .package(url: "https://github.com/swiftcsv/SwiftCSV", from: "0.10.0"),
        // Property-based tests.
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
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
        // Starling Bank's public API (v2) over HTTP: docs/starling.md.
        .target(name: "StarlingClient", dependencies: ["FeedModel", "HTTPTransport"]),
        // Up's public API (v1, JSON:API), read-only: docs/banks.md.
        .target(name: "UpClient", dependencies: ["FeedModel", "HTTPTransport"]),
        // Monzo's public API over HTTP: pots as goals, deposits once by dedupe_id (docs/banks.md).
        .target(name: "MonzoClient", dependencies: ["FeedModel", "HTTPTransport"]),
        // The built-in demo: dataset, in-process backend and API, generated pictures.
        .target(name: "DemoData", dependencies: ["FeedModel", "HTTPTransport"]),
        // `serve`: the demo backend over real HTTP: a strict, bounded HTTP/1.1 server on SwiftNIO's event loops
        // (NIOCore and NIOPosix only; its own request parser, see docs/performance.md for why and what it costs).
        .target(name: "DemoServer", dependencies: ["FeedModel", "DemoData", "StarlingClient", "UpClient", "MonzoClient",
                                                   .product(name: "NIOCore", package: "swift-nio"),
                                                   .product(name: "NIOPosix", package: "swift-nio"),
                                                   .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]),
        // The offline cache: SQLite through GRDB, behind FeedModel's `OfflineCache` protocol.
        .target(name: "FeedCache", dependencies: ["FeedModel", .product(name: "GRDB", package: "GRDB.swift")]),
        // Pictures in the terminal: decoding, scaling, half-block cells, the image store.
        .target(name: "TermImage", dependencies: ["CImageCodecs", "TermUI"]),
        // The app without its command line: state, screens and the event loop.
        .target(
            name: "QapitalApp",
            dependencies: ["FeedModel", "TermUI", "TermImage"],
            resources: [.copy("Resources/achievements.json")]
        ),
        // The headless commands (goals, activity, roundups, export): their formats and logic, on the `SavingsAPI` seam.
        .target(name: "Commands", dependencies: ["FeedModel", "TermUI"]),
        .executableTarget(
            name: "qapital-tui",
            dependencies: [
                "FeedModel", "TermUI", "QapitalApp", "FeedCache", "HTTPTransport", "QapitalClient", "StarlingClient", "UpClient", "MonzoClient", "DemoData",
                "DemoServer", "Commands",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        // What the tests and the bench share: the one fake API, the wait helper, the pseudo-terminal driver,
        // ...and the in-process demo server and raw socket client the server and client tests share.
        .target(name: "TestSupport", dependencies: ["FeedModel", "CNcurses", "DemoData", "DemoServer", "QapitalClient", "Commands"]),
        .executableTarget(name: "qapital-bench",
                          dependencies: ["CNcurses", "FeedModel", "TermUI", "QapitalApp", "DemoData", "DemoServer", "QapitalClient",
                                         "TestSupport"]),
        .testTarget(
            name: "FeedModelTests",
            dependencies: ["FeedModel", "DemoData", "TestSupport"],
            resources: [.copy("Fixtures")]
        ),
        // A test target per target with tests of its own; AppTests keeps the app's (and the binary's).
        .testTarget(name: "HTTPTransportTests", dependencies: ["HTTPTransport", "QapitalClient", "StarlingClient", "FeedModel"]),
        .testTarget(name: "QapitalClientTests", dependencies: ["QapitalClient", "HTTPTransport", "FeedModel", "DemoData", "DemoServer",
                                                          "TestSupport"]),
        .testTarget(name: "DemoServerTests", dependencies: ["DemoServer", "DemoData", "FeedModel", "StarlingClient", "UpClient", "QapitalClient",
                                                       "HTTPTransport", "TestSupport"]),
        .testTarget(name: "StarlingClientTests", dependencies: ["StarlingClient", "FeedModel", "HTTPTransport"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "UpClientTests", dependencies: ["UpClient", "FeedModel", "HTTPTransport"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "MonzoClientTests", dependencies: ["MonzoClient", "FeedModel", "HTTPTransport"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "TermUITests", dependencies: ["TermUI"]),
        .testTarget(name: "FeedCacheTests", dependencies: ["FeedCache", "FeedModel", "QapitalApp", "QapitalClient", "DemoData",
                                                           "DemoServer", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "TermImageTests", dependencies: ["TermImage", "CImageCodecs", "TermUI", "FeedModel", "DemoData", "TestSupport"]),
        // The headless commands (goals, activity, roundups, export) in process, against the demo and `serve`.
        .testTarget(name: "CommandsTests", dependencies: ["Commands", "DemoData", "DemoServer", "FeedCache", "FeedModel",
                                                          "QapitalClient", "StarlingClient", "TermUI", "TestSupport", "UpClient",
                                                          .product(name: "SwiftCSV", package: "SwiftCSV"),
                                                          .product(name: "PropertyBased", package: "swift-property-based")]),
        .testTarget(name: "AppTests", dependencies: ["qapital-tui", "QapitalApp", "FeedModel", "TermUI", "TermImage", "CNcurses",
                                                     "DemoData", "DemoServer", "QapitalClient", "HTTPTransport", "TestSupport",
                                                     "StarlingClient", "UpClient", "MonzoClient", "FeedCache", "Commands"],
                    // Golden frames: read and written in the source tree through #filePath, not bundled.
                    exclude: ["Golden"]),
    ],
    swiftLanguageModes: [.v6]
)
