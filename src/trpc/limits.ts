/**
 * How many calls one tRPC request may batch: the server refuses more (422), and the clients (the
 * web app, `createHourbookClient`) split larger batches themselves. It bounds the work one request
 * can ask for (a batch of 50 sign-ins was 50 password checks); the app's busiest page batches
 * about ten calls at once. The web app, which takes only types from the server, states it as this
 * literal type.
 */
export const MAX_BATCH_CALLS = 20;
