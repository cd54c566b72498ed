/** Token broker and token store, as http/, socket/ and cli/ use them (DESIGN.md §2); capabilities are core's. */
export {
  type BearerIdentity,
  type BearerOutcome,
  type BearerRejection,
  type BearerResolution,
  BrokerError,
  BrokerInternalError,
  BrokerLookupError,
  BrokerNotConfiguredError,
  checkBearer,
  type TokenBroker,
} from './broker.js';
export { FileTokenStore, TokenStoreError, type TokenSummary } from './fileTokenStore.js';
export { defaultTokenStorePath } from './storePath.js';
export { CLAIM_NAME, looksLikeToken, mintToken, TOKEN_PREFIX, tokenFingerprint } from './token.js';
