/** Types of bundle-budget.mjs (a plain module: build.mjs runs in Node without a compile step). */
export declare const BUNDLE_BUDGET_BYTES: number;
export declare function gzippedSizes(dir: string, files: string[]): Array<[string, number]>;
export declare function checkBudget(sizes: Array<[string, number]>): number;
