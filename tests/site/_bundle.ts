/**
 * The frozen bundle as the site's build copies it and the site's check reads it (the standard bundle of this
 * checkout), for the tests that build a site, verify a folder or approve one: spread into their options.
 */
import { bundleFiles, bundleReader } from "../../cli/site.ts";

export const SITE_BUNDLE = { readBundle: bundleReader(), readBundleFile: bundleFiles() };
