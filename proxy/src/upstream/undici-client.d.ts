/**
 * Types for the one undici module Netlens loads. Importing the package root
 * would also load fetch, WebSocket, caches and mocks (~80 ms more startup);
 * the HTTP/1.1 upstream only needs the connection class.
 */
declare module 'undici/lib/dispatcher/client.js' {
  import { Client } from 'undici';
  export default Client;
}
