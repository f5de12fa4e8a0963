// Types of scripts/bundle-core.mjs, for the test set-up that keeps the bundle current and the test that reads it.
/** packages/core/dist-bundle: the files core's entry points name. */
export declare const BUNDLE: string;
/** Whether dist-bundle holds packages/core/dist as it is now. */
export declare function coreBundleIsCurrent(): boolean;
/** Bundles packages/core/dist into dist-bundle, replacing what was there. */
export declare function bundleCore(): Promise<void>;
